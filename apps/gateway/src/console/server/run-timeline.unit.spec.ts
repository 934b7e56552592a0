import type { EventMetadata, StoredEvent } from '@app/contracts';
import { runTimeline } from './run-timeline';

describe('runTimeline', () => {
  let position = 0;
  const event = (type: string, data: Record<string, unknown>): StoredEvent => {
    position += 1;
    return {
      event_id: `e${position}`,
      type,
      data,
      metadata: { occurred_at: `2026-12-02T10:00:0${position % 10}Z` } as EventMetadata,
      stream_id: 'run-r1',
      revision: position - 1,
      position,
      recorded_at: '2026-12-02T10:00:00Z',
    };
  };
  const fixed = (fix_id: string, field: string, fix: Record<string, unknown>) =>
    event('ValuesFixed', { fix_id, field, fix, fixed_by: 'review_link', fixed_at: '2026-12-02T10:00:00Z' });

  it("says a fix's field and kind, the row of a cell edit and a date rewrite's pattern, never the values it found or wrote", () => {
    const lines = runTimeline([
      fixed('f1', 'email', { kind: 'cell', row: 12, before: 'ann@example', after: 'ann@example.com' }),
      fixed('f2', 'name', { kind: 'replace', find: 'Mr. Secret', replace: 'Secret', whole_value: false }),
      fixed('f3', 'joined', { kind: 'normalise', normaliser: 'date', date_pattern: 'dd.MM.yyyy' }),
      fixed('f4', 'amount', { kind: 'normalise', normaliser: 'amount', decimal_separator: ',' }),
      fixed('f5', 'country', { kind: 'picklist', values: { Deutschland: 'DE' } }),
      fixed('f6', 'joined', { kind: 'normalise', normaliser: 'date', date_pattern: "dd.MM.yyyy 'for Ann Secret'" }),
    ]);
    expect(lines.map((l) => l.details)).toEqual([
      { field: 'email', fix: 'cell', row: 12 },
      { field: 'name', fix: 'replace' },
      { field: 'joined', fix: 'date', date_pattern: 'dd.MM.yyyy' },
      { field: 'amount', fix: 'amount' },
      { field: 'country', fix: 'picklist' },
      // A pattern that quotes text is not shown: it may be anything.
      { field: 'joined', fix: 'date' },
    ]);
    expect(JSON.stringify(lines)).not.toMatch(/ann@example|Secret|Deutschland/);
  });

  it('says which fix an undo took back, by the fix it names; an undo of a fix it never saw stays bare', () => {
    const lines = runTimeline([
      fixed('f1', 'email', { kind: 'normalise', normaliser: 'trim' }),
      fixed('f2', 'phone', { kind: 'cell', row: 3, before: '1', after: '2' }),
      event('ValueFixUndone', { fix_id: 'f2', undone_at: '2026-12-02T10:00:00Z' }),
      event('ValueFixUndone', { fix_id: 'f1', undone_at: '2026-12-02T10:00:00Z' }),
      event('ValueFixUndone', { fix_id: 'gone', undone_at: '2026-12-02T10:00:00Z' }),
    ]);
    expect(lines.slice(2).map((l) => [l.type, l.details])).toEqual([
      ['ValueFixUndone', { field: 'phone', fix: 'cell', row: 3 }],
      ['ValueFixUndone', { field: 'email', fix: 'trim' }],
      ['ValueFixUndone', {}],
    ]);
  });

  it('says which row a reviewer left out or put back, without a field', () => {
    const lines = runTimeline([
      fixed('r1', '', { kind: 'leave_out', row: 4, numbering: '[null,true,0]' }),
      fixed('r2', '', { kind: 'put_back', row: 4, numbering: '[null,true,0]' }),
      event('ValueFixUndone', { fix_id: 'r2', undone_at: '2026-12-05T10:00:00Z' }),
    ]);
    expect(lines.map((l) => [l.type, l.details])).toEqual([
      ['ValuesFixed', { fix: 'leave_out', row: 4 }],
      ['ValuesFixed', { fix: 'put_back', row: 4 }],
      ['ValueFixUndone', { fix: 'put_back', row: 4 }],
    ]);
  });

  it('says the hidden rows were left out or put back together, with no row and no field', () => {
    const lines = runTimeline([
      fixed('h1', '', { kind: 'leave_out_hidden', numbering: '["Orders",true,0]' }),
      event('ValueFixUndone', { fix_id: 'h1', undone_at: '2026-12-06T10:00:00Z' }),
    ]);
    expect(lines.map((l) => [l.type, l.details])).toEqual([
      ['ValuesFixed', { fix: 'leave_out_hidden' }],
      ['ValueFixUndone', { fix: 'leave_out_hidden' }],
    ]);
  });

  it('leaves out progress ticks and keeps a failure’s code and message', () => {
    const lines = runTimeline([
      event('IngestionProgressed', { rows: 10 }),
      event('RunFailed', { error: { code: 'file_unreadable', message: 'The file could not be read.' }, failed_at: 'x' }),
    ]);
    expect(lines).toEqual([
      { type: 'RunFailed', at: expect.any(String), details: { code: 'file_unreadable', message: 'The file could not be read.' } },
    ]);
  });

  it('counts the rows of a file read that do not line up with its first row, and nothing when all do', () => {
    const shape = { first_row_cells: 3, longer_rows: 2, first_longer_row: 7, shorter_rows: 0, first_shorter_row: null };
    const lines = runTimeline([
      event('SourceParsed', { total_rows: 9, source_format: 'delimited', delimiter: ',', encoding: 'utf-8', row_shape: shape }),
      event('EncodingChosen', { encoding: 'windows-1252', row_shape: { ...shape, longer_rows: 0, shorter_rows: 1, first_shorter_row: 4 } }),
      event('SheetChosen', { sheet: 'Even', total_rows: 3 }),
    ]);
    expect(lines.map((l) => l.details)).toEqual([
      { total_rows: 9, source_format: 'delimited', delimiter: ',', encoding: 'utf-8', longer_rows: 2 },
      { encoding: 'windows-1252', shorter_rows: 1 },
      { sheet: 'Even', total_rows: 3 },
    ]);
  });

  it("counts the rows past a first row's last value when that row was read as the header, as the review does", () => {
    const shape = {
      first_row_cells: 3,
      longer_rows: 0,
      first_longer_row: null,
      shorter_rows: 0,
      first_shorter_row: null,
      past_header_values: { first_row_values: 2, longer_rows: 1, first_longer_row: 3 },
    };
    const read = (input_has_header: boolean) =>
      runTimeline([event('SourceParsed', { total_rows: 2, input_has_header, row_shape: shape })])[0].details;
    expect(read(true)).toMatchObject({ longer_rows: 1 });
    expect(read(false)).not.toHaveProperty('longer_rows');
  });
});
