import { Readable } from 'node:stream';
import type { LocalBlobStore } from '@app/blob-storage';
import { withTempBlobStore } from './testing/temp-blob-store';
import type { FieldDefinition } from '@app/contracts';
import type { RunState } from '@app/domain';
import { DEFAULT_TABLE_LIMITS } from '@app/tabular';
import { inspectStructuredFile } from './inspect-structured-file';
import { cutAfter, newRangeEnd, rangeNow } from './range-end';
import { joinOutputParts, writeOutputPart, writeRunOutput, type OutputWritten } from './write-output';

/**
 * An output written in two parts at once (a thread each) and joined must be byte for byte what
 * one writer gives: JSON and CSV, problem rows kept or excluded, a reviewer's fixes of single
 * cells in either half (they are addressed by row number), with and without a header row.
 */
const FIELDS: Record<string, FieldDefinition> = {
  email: { description: 'e', data_type: 'email', is_required: true, transformations: { lowercase: { enabled: true } } },
  born: {
    description: 'b',
    data_type: 'date',
    is_required: false,
    transformations: { date_format: { enabled: true, from: 'dd/MM/yyyy', to: 'yyyy-MM-dd' } },
  },
  amount: { description: 'a', data_type: 'number', is_required: false },
  note: { description: 'n', data_type: 'string', is_required: false },
};

function fileOf(rows: number, header: boolean): string {
  const lines = header ? ['Mail,Born,Amount,Note'] : [];
  for (let i = 1; i <= rows; i++) {
    const email = i % 19 === 0 ? '' : i % 23 === 0 ? 'nope' : `P${i}@Example.org`;
    const note = i % 5 === 0 ? `"a ""note"", with\nlines ${i}"` : `=formula ${i}`;
    lines.push(`${email},${String((i % 28) + 1).padStart(2, '0')}/03/2001,${i % 31 === 0 ? 'x' : i / 4},${note}`);
  }
  return lines.join('\n') + '\n';
}

describe('an output written in two parts and joined', () => {
  let blobs: LocalBlobStore;
  withTempBlobStore('output-parts-', (b) => (blobs = b));

  let n = 0;
  async function ingested(
    rows: number,
    header: boolean,
    output: 'json' | 'csv',
    exclude: boolean,
    text = fileOf(rows, header),
  ): Promise<RunState> {
    const key = `runs/o${++n}/source`;
    await blobs.put(key, Readable.from([Buffer.from(text)]));
    const base = { id: `o${n}`, filename: 'f.csv', schema: { fields: FIELDS }, source_key: key, rows_key: key } as unknown as RunState;
    const outcome = await inspectStructuredFile(blobs, { ...base, input_has_header_override: header }, DEFAULT_TABLE_LIMITS, () => 0);
    if (!('parsed' in outcome)) throw new Error('not parsed');
    const headers = outcome.parsed.source_headers;
    return {
      ...base,
      ...outcome.parsed,
      output_format: output,
      problem_rows_choice: exclude ? 'exclude' : 'include',
      mapping_rule: { email: headers[0], born: headers[1], amount: headers[2], note: headers[3] },
      value_fixes: [
        { field: 'amount', fix: { kind: 'cell', row: 31, before: 'x', after: '7.5' } },
        { field: 'amount', fix: { kind: 'cell', row: rows - 31 * 3 - (rows % 31), before: 'x', after: '8' } },
      ],
    } as unknown as RunState;
  }

  const bytesOf = async (key: string) => {
    const chunks: Buffer[] = [];
    for await (const chunk of await blobs.openRead(key)) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  };

  it.each([
    ['json', true, false],
    ['json', true, true],
    ['csv', true, false],
    ['csv', false, true],
  ] as const)(
    '%s output (header row %s, problem rows excluded %s)',
    async (format, header, exclude) => {
      const rows = 12_000;
      const run = await ingested(rows, header, format, exclude);
      const one = await writeRunOutput(blobs, run, `runs/${run.id}/one`, () => undefined);
      const half = Math.ceil(rows / 2);
      const parts: OutputWritten[] = await Promise.all([
        writeOutputPart(blobs, run, `runs/${run.id}/p1`, { fromRow: 1, toRow: half }, () => undefined),
        writeOutputPart(blobs, run, `runs/${run.id}/p2`, { fromRow: half + 1, toRow: null }, () => undefined),
      ]);
      await joinOutputParts(blobs, run, `runs/${run.id}/joined`, [`runs/${run.id}/p1`, `runs/${run.id}/p2`]);
      const expected = await bytesOf(`runs/${run.id}/one`);
      expect((await bytesOf(`runs/${run.id}/joined`)).equals(expected)).toBe(true);
      expect(expected.length).toBeGreaterThan(rows * 20);
      expect(parts[0].rows + parts[1].rows).toBe(one.rows);
      expect(parts[0].rowsWithProblems + parts[1].rowsWithProblems).toBe(one.rowsWithProblems);
      expect(parts[0].rowsExcluded + parts[1].rowsExcluded).toBe(one.rowsExcluded);
      expect(one.rowsWithProblems).toBeGreaterThan(100);
    },
    120_000,
  );

  it('joins parts with no rows into the same empty array one writer gives', async () => {
    const run = { ...(await ingested(10, true, 'json', true)), mapping_rule: {}, value_fixes: [] } as RunState;
    // Every row lacks the required e-mail (unmapped) and is excluded.
    await writeRunOutput(blobs, run, `runs/${run.id}/one`, () => undefined);
    await writeOutputPart(blobs, run, `runs/${run.id}/p1`, { fromRow: 1, toRow: 5 }, () => undefined);
    await writeOutputPart(blobs, run, `runs/${run.id}/p2`, { fromRow: 6, toRow: null }, () => undefined);
    await joinOutputParts(blobs, run, `runs/${run.id}/joined`, [`runs/${run.id}/p1`, `runs/${run.id}/p2`]);
    expect((await bytesOf(`runs/${run.id}/one`)).toString()).toBe('[]\n');
    expect((await bytesOf(`runs/${run.id}/joined`)).toString()).toBe('[]\n');
  });

  it('joins a first part with no rows and a second with some as one writer does (the first separator cut)', async () => {
    const text = [
      'Mail,Born,Amount,Note',
      ...Array.from({ length: 10 }, (_, i) => `${i < 5 ? '' : `p${i}@example.org`},01/03/2001,${i},n`),
    ].join('\n');
    const run = { ...(await ingested(10, true, 'json', true, text)), value_fixes: [] } as RunState;
    const one = await writeRunOutput(blobs, run, `runs/${run.id}/one`, () => undefined);
    const first = await writeOutputPart(blobs, run, `runs/${run.id}/p1`, { fromRow: 1, toRow: 5 }, () => undefined);
    await writeOutputPart(blobs, run, `runs/${run.id}/p2`, { fromRow: 6, toRow: null }, () => undefined);
    await joinOutputParts(blobs, run, `runs/${run.id}/joined`, [`runs/${run.id}/p1`, `runs/${run.id}/p2`]);
    expect([first.rows, one.rows]).toEqual([0, 5]);
    const expected = await bytesOf(`runs/${run.id}/one`);
    expect(JSON.parse(expected.toString())).toHaveLength(5);
    expect((await bytesOf(`runs/${run.id}/joined`)).equals(expected)).toBe(true);
  });

  it.each(['json', 'csv'] as const)(
    'joins a %s output from parts cut short while they were written, with their rests written as parts of their own',
    async (format) => {
      // Both halves are cut while written (after their first batch of rows), and the rest of
      // each goes into a third and a fourth part: the four joined in row order are one writer's bytes.
      const rows = 12_000;
      const run = await ingested(rows, true, format, true);
      const one = await writeRunOutput(blobs, run, `runs/${run.id}/one`, () => undefined);
      const half = rows / 2;
      const cutOnce = (end: BigUint64Array) => {
        let cut: number | null = null;
        return () => void (cut ??= cutAfter(end, ({ claimed }) => claimed + 700));
      };
      const ends = [newRangeEnd(1, half), newRangeEnd(half + 1, null)];
      const cuts = ends.map(cutOnce);
      const parts = await Promise.all([
        writeOutputPart(blobs, run, `runs/${run.id}/p1`, { fromRow: 1, toRow: half, end: ends[0] }, cuts[0]),
        writeOutputPart(blobs, run, `runs/${run.id}/p3`, { fromRow: half + 1, toRow: null, end: ends[1] }, cuts[1]),
      ]);
      const [firstCut, secondCut] = ends.map((end) => {
        const { claimed, lastRow } = rangeNow(end);
        expect(claimed).toBe(lastRow);
        return lastRow!;
      });
      expect(firstCut).toBeLessThan(half);
      expect(secondCut).toBeLessThan(rows);
      parts.push(
        await writeOutputPart(blobs, run, `runs/${run.id}/p2`, { fromRow: firstCut + 1, toRow: half }, () => undefined),
        await writeOutputPart(blobs, run, `runs/${run.id}/p4`, { fromRow: secondCut + 1, toRow: null }, () => undefined),
      );
      await joinOutputParts(
        blobs,
        run,
        `runs/${run.id}/joined`,
        ['p1', 'p2', 'p3', 'p4'].map((p) => `runs/${run.id}/${p}`),
      );
      expect((await bytesOf(`runs/${run.id}/joined`)).equals(await bytesOf(`runs/${run.id}/one`))).toBe(true);
      expect(parts.reduce((n, p) => n + p.rows, 0)).toBe(one.rows);
      expect(parts.reduce((n, p) => n + p.rowsExcluded, 0)).toBe(one.rowsExcluded);
      expect(parts.every((p) => p.rows > 0)).toBe(true);
    },
    120_000,
  );

  it.each(['json', 'csv'] as const)(
    'a %s part told to stop stops before its next batch and keeps nothing, not even its temporary file',
    async (format) => {
      const run = await ingested(12_000, true, format, false);
      const stop = new AbortController();
      let batches = 0;
      const written = writeOutputPart(
        blobs,
        run,
        `runs/${run.id}/p1`,
        { fromRow: 1, toRow: null },
        () => {
          if (++batches === 3) stop.abort(new DOMException('stop', 'AbortError'));
        },
        { signal: stop.signal },
      );
      await expect(written).rejects.toMatchObject({ name: 'AbortError' });
      expect(batches).toBe(3);
      expect(await blobs.stat(`runs/${run.id}/p1`)).toBeNull();
      // With no age asked for, every temporary file there is counted (and removed): none is.
      expect(await blobs.removeAbandonedTemporaryFiles(0)).toBe(0);
    },
    60_000,
  );
});
