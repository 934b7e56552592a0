import type { RunEvent } from '@app/contracts';
import { CommandRefused } from '../errors/domain-error';
import { AFTER_EXPIRY, HISTORY, LATER, T0, approved, created, fold, parsed, prepared, uploaded } from '../testing/run-history.fixtures';
import type { RunCommand, SourceReadAgain } from './commands';
import { decide } from './decide';
import { evolve } from './evolve';
import type { RunFold } from './run-state';

/** A workbook's sheet choice: recorded by SheetChosen through the decider, folded into what every reader reads. */

const workbookParsed: RunEvent = {
  type: 'SourceParsed',
  data: {
    source_headers: ['E-mail', 'Full name'],
    input_has_header: true,
    total_rows: 2,
    source_format: 'xlsx',
    delimiter: null,
    encoding: 'xlsx',
    rows_origin: 'file',
    sheets: [
      { name: 'Notes', state: 'hidden', has_data: true },
      { name: 'People', state: 'visible', has_data: true },
      { name: 'Orders', state: 'visible', has_data: true },
      { name: 'Blank', state: 'visible', has_data: false },
    ],
    sheet: 'People',
  },
};
const workbookReview = [created({ filename: 'people.xlsx' }), uploaded, workbookParsed, prepared];
const ordersRead = { source_headers: ['Order', 'E-mail', 'Total'], input_has_header: true, total_rows: 5 };
const peopleRead = { source_headers: ['E-mail', 'Full name'], input_has_header: true, total_rows: 2 };
const choose = (sheet: string, at = T0, read: SourceReadAgain = ordersRead): RunCommand => ({ type: 'ChooseSheet', sheet, read, at });

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

describe('choosing a sheet', () => {
  it('a workbook opens on the sheet ingestion chose, with the sheets it listed', () => {
    const run = fold(workbookReview)!;
    expect(run.sheet).toBe('People');
    expect(run.sheets!.map((s) => s.name)).toEqual(['Notes', 'People', 'Orders', 'Blank']);
  });

  it('records SheetChosen with the headers read from the sheet, and keeps the mapping only where the column is on it', () => {
    const events = decide(choose('Orders'), fold(workbookReview));
    expect(events).toEqual([
      {
        type: 'SheetChosen',
        data: {
          sheet: 'Orders',
          ...ordersRead,
          // `prepared` mapped email to "E-mail" (Orders has it too) and left name unmapped.
          mapping_rule: { email: 'E-mail', name: null },
          chosen_at: T0,
        },
      },
    ]);
    expect(after(workbookReview, events)).toMatchObject({
      sheet: 'Orders',
      source_headers: ['Order', 'E-mail', 'Total'],
      parsed_headers: ['Order', 'E-mail', 'Total'],
      total_rows: 5,
      processed_rows: 5,
      mapping_rule: { email: 'E-mail', name: null },
      mapping_version: 2,
    });
  });

  it('the limits each read applied are the ones the rows are read under after it: those of the sheet chosen last', () => {
    const raised = {
      max_row_chars: 1024 * 1024,
      max_field_chars: 256 * 1024,
      max_columns: 2000,
      max_rows: 10_000_000,
      max_unpacked_bytes: 1024 ** 3,
      max_compression_ratio: 200,
    };
    const parsedWide: RunEvent = { ...workbookParsed, data: { ...workbookParsed.data, read_limits: raised } };
    const history = [created({ filename: 'people.xlsx' }), uploaded, parsedWide, prepared];
    expect(fold(history)!.read_limits).toEqual(raised);
    // Chosen under the defaults (the configuration changed meanwhile): the sheet's reads apply those.
    const underDefaults = decide(choose('Orders'), fold(history));
    expect(underDefaults[0].type === 'SheetChosen' && 'read_limits' in underDefaults[0].data).toBe(false);
    expect(after(history, underDefaults)!.read_limits).toBeNull();
    // Chosen under raised limits: recorded with the choice.
    const underRaised = decide(
      choose('Orders', T0, { ...ordersRead, read_limits: { ...raised, max_columns: 3000 } }),
      fold(workbookReview),
    );
    expect(underRaised[0].type === 'SheetChosen' && underRaised[0].data.read_limits).toEqual({ ...raised, max_columns: 3000 });
    expect(after(workbookReview, underRaised)!.read_limits).toEqual({ ...raised, max_columns: 3000 });
  });

  it('drops a mapped column the new sheet does not have', () => {
    const history: RunEvent[] = [
      ...workbookReview,
      { type: 'MappingEdited', data: { mapping_rule: { email: 'E-mail', name: 'Full name' }, edited_at: T0 } },
    ];
    const [event] = decide(choose('Orders'), fold(history));
    expect(event.type === 'SheetChosen' && event.data.mapping_rule).toEqual({ email: 'E-mail', name: null });
  });

  it("gives a field without a column on the new sheet what the sheet's headers suggest, where that column is free", () => {
    // A cover sheet the review opened on: nothing mapped there. On the table, its headers are matched.
    const cover: RunEvent = { ...workbookParsed, data: { ...workbookParsed.data, source_headers: ['Quarterly report'] } };
    const nothing: RunEvent = { ...prepared, data: { ...prepared.data, mapping_rule: { email: null, name: null } } };
    const history = [created({ filename: 'people.xlsx' }), uploaded, cover, nothing];
    const read = { source_headers: ['Order', 'Name', 'Email'], input_has_header: true, total_rows: 5 };
    const [event] = decide(choose('Orders', T0, read), fold(history));
    expect(event.type === 'SheetChosen' && event.data.mapping_rule).toEqual({ email: 'Email', name: 'Name' });
    // A field that loses its column takes the sheet's suggestion, unless another field already has that column.
    const edited = (mapping_rule: Record<string, string | null>): RunEvent[] => [
      ...workbookReview,
      { type: 'MappingEdited', data: { mapping_rule, edited_at: T0 } },
    ];
    const contacts = { source_headers: ['Email', 'Name'], input_has_header: true, total_rows: 5 };
    const ruleOn = (history: RunEvent[]) => {
      const [e] = decide(choose('Orders', T0, contacts), fold(history));
      return e.type === 'SheetChosen' && e.data.mapping_rule;
    };
    expect(ruleOn(edited({ email: 'E-mail', name: 'Full name' }))).toEqual({ email: 'Email', name: 'Name' });
    expect(ruleOn(edited({ email: 'E-mail', name: 'Email' }))).toEqual({ email: null, name: 'Email' });
    // A field the reviewer left without a column stays so, while another field is mapped.
    expect(ruleOn(edited({ email: 'E-mail', name: null }))).toEqual({ email: 'Email', name: null });
  });

  it("gives a sheet back the columns its fields had when the reviewer returns to it, whatever the other sheet's mapping", () => {
    const peopleMapping = { email: 'E-mail', name: 'Full name' };
    let history: RunEvent[] = [...workbookReview, { type: 'MappingEdited', data: { mapping_rule: peopleMapping, edited_at: T0 } }];
    history = [...history, ...decide(choose('Orders'), fold(history))];
    expect(fold(history)!.mapping_rule).toEqual({ email: 'E-mail', name: null });
    // On Orders, email is moved to another column; back on People, People's own mapping is there again.
    history = [...history, { type: 'MappingEdited', data: { mapping_rule: { email: 'Order', name: null }, edited_at: T0 } }];
    const back = decide(choose('People', T0, peopleRead), fold(history));
    expect(back[0].type === 'SheetChosen' && back[0].data.mapping_rule).toEqual(peopleMapping);
    // And Orders, chosen again, gets its own back.
    const again = [...history, ...back];
    const orders = decide(choose('Orders'), fold(again));
    expect(orders[0].type === 'SheetChosen' && orders[0].data.mapping_rule).toEqual({ email: 'Order', name: null });
  });

  it('a sheet read again under another header choice gives its fields back the columns in their places (a probe: every field came back null)', () => {
    // On People the first row is taken for data (column_1, column_2); then Orders; then People again, read as at
    // ingestion with its header row. The columns saved for People name no column of that read.
    const peopleMapping = { email: 'E-mail', name: 'Full name' };
    let history: RunEvent[] = [...workbookReview, { type: 'MappingEdited', data: { mapping_rule: peopleMapping, edited_at: T0 } }];
    const noHeader: RunCommand = { type: 'ChooseHeaderRow', input_has_header: false, first_row: ['E-mail', 'Full name'], at: T0 };
    history = [...history, ...decide(noHeader, fold(history))];
    expect(fold(history)!.mapping_rule).toEqual({ email: 'column_1', name: 'column_2' });
    const contacts = { source_headers: ['E-mail', 'Full name', 'Total'], input_has_header: true, total_rows: 5 };
    history = [...history, ...decide(choose('Orders', T0, contacts), fold(history))];
    expect(fold(history)!.mapping_rule).toEqual(peopleMapping);
    const back = decide(choose('People', T0, peopleRead), fold(history));
    expect(back[0].type === 'SheetChosen' && back[0].data.mapping_rule).toEqual(peopleMapping);
    // A field the reviewer left without a column on People stays so when it comes back, the others as above.
    let unmapped: RunEvent[] = [
      ...history.slice(0, -1),
      { type: 'MappingEdited', data: { mapping_rule: { email: 'column_1', name: null }, edited_at: T0 } },
    ];
    unmapped = [...unmapped, ...decide(choose('Orders', T0, contacts), fold(unmapped))];
    const again = decide(choose('People', T0, peopleRead), fold(unmapped));
    expect(again[0].type === 'SheetChosen' && again[0].data.mapping_rule).toEqual({ email: 'E-mail', name: null });
    // The other way: left with its header row, read again without one; each field keeps the column in its place.
    let named: RunEvent[] = [
      ...workbookReview,
      { type: 'MappingEdited', data: { mapping_rule: { email: 'Full name', name: 'E-mail' }, edited_at: T0 } },
    ];
    named = [...named, ...decide(choose('Orders'), fold(named))];
    const headerless = { source_headers: ['column_1', 'column_2'], input_has_header: false, total_rows: 3 };
    const read = decide(choose('People', T0, headerless), fold(named));
    expect(read[0].type === 'SheetChosen' && read[0].data.mapping_rule).toEqual({ email: 'column_2', name: 'column_1' });
  });

  it('keeps a sheet left by the places of its columns, not its header row: the run stays small however long the names', () => {
    // A header row may be up to MAX_ROW_CHARS (1 Mi characters) of names; the run's document (a MongoDB document is at
    // most 16 MB) kept every visited sheet's whole row before. Now each field's place, whatever the names' length.
    const long = (name: string) => name.padEnd(200_000, '.');
    const wideRead = { source_headers: [long('Order'), long('E-mail'), long('Total')], input_has_header: true, total_rows: 5 };
    let history: RunEvent[] = [
      ...workbookReview,
      { type: 'MappingEdited', data: { mapping_rule: { email: 'Full name', name: null }, edited_at: T0 } },
    ];
    history = [...history, ...decide(choose('Orders', T0, wideRead), fold(history))];
    history = [...history, { type: 'MappingEdited', data: { mapping_rule: { email: long('Total'), name: long('Order') }, edited_at: T0 } }];
    history = [...history, ...decide(choose('People', T0, peopleRead), fold(history))];
    const state = fold(history)!;
    expect(state.sheet_columns).toEqual({ People: { email: 1, name: null }, Orders: { email: 2, name: 0 } });
    expect(JSON.stringify(state.sheet_columns).length).toBeLessThan(100);
    expect(state.mapping_rule).toEqual({ email: 'Full name', name: null });
    // Back on Orders, the long names are found again by their places.
    const back = decide(choose('Orders', T0, wideRead), fold(history));
    expect(back[0].type === 'SheetChosen' && back[0].data.mapping_rule).toEqual({ email: long('Total'), name: long('Order') });
  });

  it('a hidden sheet with data may be chosen; the sheet already read changes nothing', () => {
    expect(decide(choose('Notes'), fold(workbookReview)).map((e) => e.type)).toEqual(['SheetChosen']);
    expect(decide(choose('People'), fold(workbookReview))).toEqual([]);
  });

  it.each([
    ['a sheet the workbook does not have', workbookReview, choose('Invoices'), 'unknown_sheet'],
    ['names compare exactly', workbookReview, choose('orders'), 'unknown_sheet'],
    ['a sheet without data', workbookReview, choose('Blank'), 'sheet_empty'],
    ['a delimited file', HISTORY.reviewActive, choose('Orders'), 'sheet_not_applicable'],
    ['before the review is ready', [created(), uploaded, workbookParsed], choose('Orders'), 'review_not_ready'],
    ['after approval', [...workbookReview, approved], choose('Orders'), 'review_already_approved'],
    ['after the deadline', workbookReview, choose('Orders', AFTER_EXPIRY), 'review_expired'],
  ])('refuses %s', (_name, history, command, code) => expect(refusal(history, command)).toBe(code));

  it('a workbook parsed before sheets were listed has none to choose from, and reads its first sheet with rows as before', () => {
    const old: RunEvent = { type: 'SourceParsed', data: { ...parsed.data, source_format: 'xlsx', delimiter: null } };
    const history = [created({ filename: 'old.xlsx' }), uploaded, old, prepared];
    expect(fold(history)).toMatchObject({ sheet: null, sheets: [] });
    expect(refusal(history, choose('Orders'))).toBe('sheet_not_applicable');
  });
});
