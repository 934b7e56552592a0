import fc from 'fast-check';
import Papa from 'papaparse';
import type { LocalBlobStore } from '@app/blob-storage';
import { withTempBlobStore } from './testing/temp-blob-store';
import type { FieldDefinition } from '@app/contracts';
import { mapRow, planFields } from '@app/domain';
import { writeRunOutput } from './write-output';
import { storedCsvRun } from './testing/stored-csv-run';

/**
 * The JSON output is written straight from the mapped cells, without a record object per
 * row: it must be byte for byte what JSON.stringify of each mapped record gave, for any
 * cell text (quotes, control characters, unicode, lone surrogates) and any field types.
 */
const FIELDS: Record<string, FieldDefinition> = {
  email: {
    description: 'e',
    data_type: 'email',
    is_required: true,
    transformations: { trim_whitespace: { enabled: true }, lowercase: { enabled: true } },
  },
  'name "quoted"': { description: 'n', data_type: 'string', is_required: false, transformations: { uppercase: { enabled: true } } },
  born: {
    description: 'b',
    data_type: 'date',
    is_required: false,
    transformations: { date_format: { enabled: true, from: 'dd/MM/yyyy', to: 'yyyy-MM-dd' } },
  },
  amount: { description: 'a', data_type: 'number', is_required: false },
  active: { description: 'x', data_type: 'boolean', is_required: false },
  unmapped: { description: 'u', data_type: 'string', is_required: false },
};
const HEADERS = ['Mail', 'Name', 'Born', 'Amount', 'Active'];
const MAPPING = { email: 'Mail', 'name "quoted"': 'Name', born: 'Born', amount: 'Amount', active: 'Active', unmapped: null };

describe('JSON output written from the cells', () => {
  let blobs: LocalBlobStore;
  withTempBlobStore('write-output-', (b) => (blobs = b));

  const cell = fc.oneof(
    // NUL never reaches the output: ingestion refuses a text file holding it.
    fc.string({ unit: 'binary', maxLength: 12 }).map((s) => s.replace(/\0/g, '')),
    fc.constantFrom('', ' ', 'x@y.org', ' A@B.CO ', '31/12/1999', '1e3', '-0', 'true', 'no', '"', '\\', '\u2028', '\ud800'),
  );
  const rows = fc.array(fc.array(cell, { minLength: 5, maxLength: 5 }), { minLength: 1, maxLength: 30 });

  it('is what JSON.stringify of the mapped records gives, and counts rows with problems', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(rows, async (data) => {
        const csv = Papa.unparse([HEADERS, ...data], { newline: '\n' });
        const run = await storedCsvRun(blobs, `r${++n}`, csv, FIELDS, HEADERS, { output_format: 'json', mapping_rule: MAPPING });
        const written = await writeRunOutput(blobs, run, `runs/r${n}/output.json`, () => undefined);

        // What the reader gives back (the file is UTF-8, so a lone surrogate is stored as U+FFFD;
        // blank rows are dropped), mapped the plain way.
        const stored = Buffer.from(csv, 'utf8').toString('utf8');
        const parsed = Papa.parse<string[]>(stored, { skipEmptyLines: 'greedy' }).data.slice(1);
        const plan = planFields(FIELDS, MAPPING, HEADERS);
        const mapped = parsed.map((row, i) => mapRow(row, i + 1, plan, true));
        const expected = mapped.length === 0 ? '[]\n' : `[\n${mapped.map((m) => JSON.stringify(m.record)).join(',\n')}\n]\n`;

        const stream = await blobs.openRead(`runs/r${n}/output.json`);
        let text = '';
        for await (const chunk of stream) text += (chunk as Buffer).toString('utf8');
        expect(text).toBe(expected);
        expect(written).toEqual({
          rows: mapped.length,
          rowsWithProblems: mapped.filter((m) => m.problems.length > 0).length,
          rowsExcluded: 0,
        });
      }),
      { numRuns: 150 },
    );
  });
});
