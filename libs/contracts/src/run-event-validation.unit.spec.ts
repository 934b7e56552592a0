import { runEventDataProblem } from './run-event-validation';

/** A stored run event's payload checked against the contract's JSON Schema (run-event-schemas.json). */
describe('runEventDataProblem', () => {
  it('accepts a payload that matches its type, with members the contract does not name', () => {
    expect(runEventDataProblem('SourceUploaded', { size_bytes: 12, uploaded_at: '2026-12-05T10:00:00.000Z', extra: 1 })).toBeNull();
    expect(runEventDataProblem('ReviewApproved', { mapping_rule: { email: 'E-mail', age: null }, approved_at: 'x' })).toBeNull();
  });

  it('names what is wrong: a wrong type, a missing member, a payload that is no object', () => {
    expect(runEventDataProblem('RunFailed', { error: 5, failed_at: '2026-12-05T10:00:00.000Z' })).toBe('data/error must be object');
    expect(runEventDataProblem('SourceUploaded', { size_bytes: 12 })).toBe("data must have required property 'uploaded_at'");
    expect(runEventDataProblem('SourceUploaded', 'garbage')).toBe('data must be object');
    expect(runEventDataProblem('SourceUploaded', null)).toBe('data must be object');
    expect(runEventDataProblem('ReviewApproved', { mapping_rule: { email: 3 }, approved_at: 'x' })).toMatch(
      /^data\/mapping_rule\/email must be/,
    );
  });

  it("a sheet's hidden rows counted past the list: optional, so events recorded before it are valid as they were", () => {
    const parsed = {
      source_headers: ['Order'],
      input_has_header: true,
      total_rows: 1300,
      source_format: 'xlsx',
      delimiter: null,
      encoding: 'xlsx',
      hidden_rows: [2, 3],
    };
    const chosen = {
      sheet: 'Orders',
      source_headers: ['Order'],
      input_has_header: true,
      total_rows: 1300,
      mapping_rule: {},
      chosen_at: 'x',
    };
    expect(runEventDataProblem('SourceParsed', parsed)).toBeNull();
    expect(runEventDataProblem('SourceParsed', { ...parsed, hidden_rows_total: 1040 })).toBeNull();
    expect(runEventDataProblem('SheetChosen', { ...chosen, hidden_rows: [2], hidden_rows_total: 1040 })).toBeNull();
    expect(runEventDataProblem('SheetChosen', chosen)).toBeNull();
    expect(runEventDataProblem('SourceParsed', { ...parsed, hidden_rows_total: '1040' })).toBe('data/hidden_rows_total must be number');
  });

  it('does not judge a type this code does not know (a newer release wrote it)', () => {
    expect(runEventDataProblem('RunArchived', 42)).toBeNull();
  });
});
