import type { RunState } from '@app/domain';
import { outputByteLimit } from './output-limit';

const settings = { maxUploadBytes: 1_000, maxOutputRatio: 64, tableLimits: { maxUnpackedBytes: 10_000_000, maxCompressionRatio: 200 } };

/** A run of `rows` rows whose schema has `fields` (names "f0", "f1", …), mapped as `mapping` says. */
const run = (over: { rows?: number; fields?: number; mapping?: Record<string, string | null>; format?: 'json' | 'csv'; xlsx?: boolean }) =>
  ({
    schema: { fields: Object.fromEntries(Array.from({ length: over.fields ?? 1 }, (_, i) => [`f${i}`, {}])) },
    total_rows: over.rows ?? 0,
    mapping_rule: over.mapping ?? null,
    output_format: over.format ?? 'json',
    source_format: over.xlsx ? 'xlsx' : 'delimited',
  }) as unknown as RunState;

describe('outputByteLimit', () => {
  it("is the ratio times the source's size once that passes the largest upload", () => {
    expect(outputByteLimit(run({ mapping: { f0: 'A' } }), 100, settings)).toBe(2 + 64 * 100);
    expect(outputByteLimit(run({ mapping: { f0: 'A' } }), 1_000_000, { ...settings, maxOutputRatio: 2 })).toBe(2 + 2_000_000);
  });

  it('is never less than the largest upload (a small source, a source whose size is unknown)', () => {
    expect(outputByteLimit(run({}), 10, settings)).toBe(1_000);
    expect(outputByteLimit(run({}), null, settings)).toBe(1_000);
  });

  it("counts every field's name and a null on every row, mapped or not, as the JSON output writes them", () => {
    // 100,000 rows of 120 fields, one of them mapped to a one-character column: the frame is what the output mostly is.
    const wide = run({ rows: 100_000, fields: 120, mapping: { f0: 'A' } });
    const oneRow = `{${Array.from({ length: 120 }, (_, i) => `"f${i}":null`).join(',')}},\n`;
    const limit = outputByteLimit(wide, 200_000, settings);
    expect(limit).toBeGreaterThanOrEqual(100_000 * oneRow.length + 64 * 200_000);
    expect(limit).toBeLessThan(100_000 * (oneRow.length + 10) + 64 * 200_000);
  });

  it("counts a column's values once for every field that reads it", () => {
    const once = outputByteLimit(run({ fields: 3, mapping: { f0: 'A', f1: 'B', f2: null } }), 100_000, settings);
    const thrice = outputByteLimit(run({ fields: 3, mapping: { f0: 'A', f1: 'A', f2: 'A' } }), 100_000, settings);
    expect(thrice - once).toBe(2 * 64 * 100_000);
  });

  it('a CSV output is framed by commas and line breaks, its header once', () => {
    const limit = outputByteLimit(run({ rows: 10_000, fields: 3, format: 'csv', mapping: { f0: 'A' } }), 50_000, settings);
    expect(limit).toBe(2 + 3 * (2 * 2 + 3) + 10_000 * 5 + 64 * 50_000);
  });

  it('takes a workbook at what its sheets may unpack to, not at its compressed size, and no more than a workbook may unpack to', () => {
    const book = run({ mapping: { f0: 'A' }, xlsx: true });
    expect(outputByteLimit(book, 1_000, settings)).toBe(2 + 64 * 1024 * 1024); // a small workbook: its parts may unpack to 1 MiB whatever the ratio
    expect(outputByteLimit(book, 20_000, settings)).toBe(2 + 64 * 200 * 20_000);
    expect(outputByteLimit(book, 1_000_000, settings)).toBe(2 + 64 * 10_000_000);
  });
});
