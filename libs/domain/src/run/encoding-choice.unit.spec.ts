import type { RunEvent } from '@app/contracts';
import { CommandRefused } from '../errors/domain-error';
import { AFTER_EXPIRY, LATER, T0, approved, created, fold, parsed, prepared, uploaded } from '../testing/run-history.fixtures';
import type { RunCommand } from './commands';
import { decide } from './decide';
import { evolve } from './evolve';
import type { RunFold } from './run-state';

/** The reviewer's choice of a text file's encoding: recorded by EncodingChosen through the decider, folded into what every reader reads. */

/** A windows-1252 file that was read as windows-1250: its "Straße" column read "Straße" in neither. */
const misread: RunEvent = {
  type: 'SourceParsed',
  data: { ...parsed.data, source_headers: ['E-mail', 'StraÃŸe', 'Full name'], encoding: 'windows-1250' },
};
const review = [created({ filename: 'people.csv' }), uploaded, misread, prepared];
const readAs1252 = { source_headers: ['E-mail', 'Straße', 'Full name'], input_has_header: true, total_rows: 2 };
const choose = (encoding: string, at = T0): RunCommand => ({ type: 'ChooseEncoding', encoding, read: readAs1252, at });

const after = (history: RunEvent[], events: RunEvent[]): RunFold =>
  events.reduce<RunFold>((s, e, i) => evolve(s, e, history.length + i, LATER), fold(history));

function refusal(history: RunEvent[], command: RunCommand): string {
  try {
    decide(command, fold(history));
  } catch (err) {
    if (err instanceof CommandRefused) return err.code;
    throw err;
  }
  throw new Error('expected a refusal');
}

describe('choosing the encoding of a text file', () => {
  it('records EncodingChosen with the headers read in it, each field keeping the column in its place', () => {
    const history: RunEvent[] = [
      ...review,
      { type: 'MappingEdited', data: { mapping_rule: { email: 'E-mail', name: 'StraÃŸe' }, edited_at: T0 } },
    ];
    const events = decide(choose('windows-1252'), fold(history));
    expect(events).toEqual([
      {
        type: 'EncodingChosen',
        data: {
          encoding: 'windows-1252',
          ...readAs1252,
          // The second column reads "Straße" now; the field mapped to it keeps it.
          mapping_rule: { email: 'E-mail', name: 'Straße' },
          chosen_at: T0,
        },
      },
    ]);
    expect(after(history, events)).toMatchObject({
      encoding: 'windows-1252',
      source_headers: ['E-mail', 'Straße', 'Full name'],
      parsed_headers: ['E-mail', 'Straße', 'Full name'],
      total_rows: 2,
      mapping_rule: { email: 'E-mail', name: 'Straße' },
      mapping_version: 3,
    });
  });

  it('the limits the file is read under after the choice are those of its read in the chosen encoding', () => {
    const raised = {
      max_row_chars: 4 * 1024 * 1024,
      max_field_chars: 256 * 1024,
      max_columns: 1000,
      max_rows: 10_000_000,
      max_unpacked_bytes: 1024 ** 3,
      max_compression_ratio: 200,
    };
    const parsedRaised: RunEvent = { ...misread, data: { ...misread.data, read_limits: raised } };
    const history = [created({ filename: 'people.csv' }), uploaded, parsedRaised, prepared];
    expect(fold(history)!.read_limits).toEqual(raised);
    const underDefaults = decide(choose('windows-1252'), fold(history));
    expect(after(history, underDefaults)!.read_limits).toBeNull();
    const command: RunCommand = { type: 'ChooseEncoding', encoding: 'windows-1252', read: { ...readAs1252, read_limits: raised }, at: T0 };
    const underRaised = decide(command, fold(review));
    expect(underRaised[0].type === 'EncodingChosen' && underRaised[0].data.read_limits).toEqual(raised);
    expect(after(review, underRaised)!.read_limits).toEqual(raised);
  });

  it("carries the rows out of line as read in the chosen encoding, and replaces the first read's with them, or with none", () => {
    const shape = { first_row_cells: 3, longer_rows: 1, first_longer_row: 4, shorter_rows: 0, first_shorter_row: null };
    const ragged: RunEvent[] = [
      created({ filename: 'people.csv' }),
      uploaded,
      { ...misread, data: { ...misread.data, row_shape: shape } },
      prepared,
    ];
    expect(fold(ragged)?.row_shape).toEqual(shape);
    const other = { ...shape, longer_rows: 2 };
    const events = decide({ ...choose('windows-1252'), read: { ...readAs1252, row_shape: other } } as RunCommand, fold(ragged));
    expect(events[0].data).toMatchObject({ row_shape: other });
    expect(after(ragged, events)?.row_shape).toEqual(other);
    // Read so, every row lines up: the notice goes.
    const even = decide(choose('windows-1252'), fold(ragged));
    expect(even[0].data).not.toHaveProperty('row_shape');
    expect(after(ragged, even)?.row_shape).toBeNull();
  });

  it('refuses a read made with another header row than the run now has (another tab answered since), and a header choice read in another encoding', () => {
    const headerless: RunCommand = {
      type: 'ChooseEncoding',
      encoding: 'windows-1252',
      read: { ...readAs1252, input_has_header: false },
      at: T0,
    };
    expect(refusal(review, headerless)).toBe('mapping_conflict');
    const staleHeader: RunCommand = {
      type: 'ChooseHeaderRow',
      input_has_header: false,
      first_row: ['E-mail', 'StraÃŸe', 'Full name'],
      encoding: 'windows-1252',
      at: T0,
    };
    expect(refusal(review, staleHeader)).toBe('mapping_conflict');
    expect(decide({ ...staleHeader, encoding: 'windows-1250' }, fold(review)).map((e) => e.type)).toEqual(['HeaderRowChosen']);
  });

  it('carries the rows left out above the header, keeps those the first read found, and refuses a read under another count', () => {
    const titled: RunEvent[] = [
      created({ filename: 'people.csv' }),
      uploaded,
      { ...misread, data: { ...misread.data, rows_above_header: ['Kundenliste StraÃŸe'] } },
      prepared,
    ];
    const read = { ...readAs1252, rows_above_header: ['Kundenliste Straße'] };
    const events = decide({ ...choose('windows-1252'), read } as RunCommand, fold(titled));
    expect(events[0].data).toMatchObject({ rows_above_header: ['Kundenliste Straße'] });
    expect(after(titled, events)).toMatchObject({
      rows_above_header: ['Kundenliste Straße'],
      rows_above_header_found: ['Kundenliste Straße'],
    });
    // Read without the title (another tab took it as rows since this read began): refused, not folded off by one.
    expect(refusal(titled, choose('windows-1252'))).toBe('mapping_conflict');
    // Read as rows by the reviewer, then in another encoding: what the first read found is still offered.
    const asRows: RunEvent[] = [
      ...titled,
      {
        type: 'HeaderRowChosen',
        data: {
          input_has_header: false,
          source_headers: ['column_1', 'column_2', 'column_3'],
          total_rows: 4,
          mapping_rule: {},
          chosen_at: T0,
        },
      },
    ];
    const again = decide(
      { ...choose('windows-1252'), read: { ...readAs1252, input_has_header: false, total_rows: 4 } } as RunCommand,
      fold(asRows),
    );
    expect(after(asRows, again)).toMatchObject({ rows_above_header: [], rows_above_header_found: ['Kundenliste StraÃŸe'] });
    // With the found rows as the chosen encoding reads them (what the gateway sends now): offered in those letters.
    const reread = decide(
      {
        ...choose('windows-1252'),
        read: { ...readAs1252, input_has_header: false, total_rows: 4, rows_above_header_found: ['Kundenliste Straße'] },
      } as RunCommand,
      fold(asRows),
    );
    expect(reread[0].data).toMatchObject({ rows_above_header_found: ['Kundenliste Straße'] });
    expect(after(asRows, reread)).toMatchObject({ rows_above_header: [], rows_above_header_found: ['Kundenliste Straße'] });
    // A read that leaves a title out records it once, as the rows left out.
    const leftOut = decide(
      { ...choose('windows-1252'), read: { ...read, rows_above_header_found: ['ignored'] } } as RunCommand,
      fold(titled),
    );
    expect(leftOut[0].data).not.toHaveProperty('rows_above_header_found');
  });

  it('the encoding already read changes nothing', () => {
    expect(decide(choose('windows-1250'), fold(review))).toEqual([]);
  });

  const workbook: RunEvent = { type: 'SourceParsed', data: { ...parsed.data, source_format: 'xlsx', delimiter: null, encoding: 'xlsx' } };
  const utf16: RunEvent = { type: 'SourceParsed', data: { ...parsed.data, encoding: 'utf-16le' } };
  const shiftJis: RunEvent = { type: 'SourceParsed', data: { ...parsed.data, encoding: 'shift_jis' } };
  it.each([
    ['an encoding the review does not offer', review, choose('utf-16le'), 'unknown_encoding'],
    ['names compare exactly', review, choose('Windows-1252'), 'unknown_encoding'],
    ['a workbook', [created({ filename: 'a.xlsx' }), uploaded, workbook, prepared], choose('windows-1252'), 'encoding_not_applicable'],
    [
      'a file read as UTF-16 (its rows lie elsewhere in the bytes)',
      [created(), uploaded, utf16, prepared],
      choose('utf-8'),
      'encoding_not_applicable',
    ],
    ['a file read as Shift_JIS', [created(), uploaded, shiftJis, prepared], choose('windows-1252'), 'encoding_not_applicable'],
    ['before the review is ready', [created(), uploaded, misread], choose('windows-1252'), 'review_not_ready'],
    ['after approval', [...review, approved], choose('windows-1252'), 'review_already_approved'],
    ['after the deadline', review, choose('windows-1252', AFTER_EXPIRY), 'review_expired'],
  ])('refuses %s', (_name, history, command, code) => expect(refusal(history, command)).toBe(code));
});
