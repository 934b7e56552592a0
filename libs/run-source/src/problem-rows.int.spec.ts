import fc from 'fast-check';
import Papa from 'papaparse';
import type { LocalBlobStore } from '@app/blob-storage';
import { withTempBlobStore } from './testing/temp-blob-store';
import type { FieldDefinition } from '@app/contracts';
import type { CellProblem, RunState } from '@app/domain';
import { countMappingProblems } from './count-problems';
import { findProblemRows, type ProblemRowsQuery } from './find-problem-rows';
import { storedCsvRun } from './testing/stored-csv-run';

/**
 * A page of the problem list read with the totals a finished count knows stops early; it must
 * hold the same rows and totals as the page read over the whole file, for every filter.
 */
const FIELDS: Record<string, FieldDefinition> = {
  email: { description: 'e', data_type: 'email', is_required: true },
  age: { description: 'a', data_type: 'integer', is_required: false },
};
const HEADERS = ['Mail', 'Age'];

describe('rows with problems, a page at a time', () => {
  let blobs: LocalBlobStore;
  withTempBlobStore('problem-rows-', (b) => (blobs = b));

  const row = fc.tuple(fc.constantFrom('', 'a@x.org', 'bad'), fc.constantFrom('', '1', 'x'));
  let n = 0;
  async function stored(data: [string, string][]): Promise<RunState> {
    return storedCsvRun(blobs, `p${++n}`, Papa.unparse([HEADERS, ...data], { newline: '\n' }), FIELDS, HEADERS, { output_format: 'csv' });
  }

  it('gives the same page with known totals as over the whole file, for every filter', async () => {
    const mapping = { email: 'Mail', age: 'Age' };
    await fc.assert(
      fc.asyncProperty(fc.array(row, { minLength: 1, maxLength: 40 }), fc.integer({ min: 1, max: 4 }), async (data, perPage) => {
        const run = await stored(data);
        const tally = (await countMappingProblems(blobs, run, mapping))!;
        const filters: [string | null, CellProblem | null][] = [
          [null, null],
          ['email', null],
          [null, 'required'],
          [null, 'type'],
          ['age', 'type'],
        ];
        for (const [field, kind] of filters) {
          const matching =
            field && kind
              ? tally.problems_by_field_and_kind[field][kind]
              : field
                ? tally.problems_by_field[field]
                : kind
                  ? tally.rows_by_kind[kind]
                  : tally.rows_with_problems;
          const query: ProblemRowsQuery = { field, kind, offset: perPage, limit: perPage };
          const whole = await findProblemRows(blobs, run, mapping, query);
          const early = await findProblemRows(blobs, run, mapping, { ...query, known: { matching, rows_checked: tally.rows_checked } });
          expect(early).toEqual(whole);
        }
      }),
      { numRuns: 60 },
    );
  });

  it('stops reading once the page is full when the totals are known', async () => {
    // Every row lacks its required e-mail.
    const run = await stored(Array.from({ length: 50 }, () => ['', '5'] as [string, string]));
    const page = await findProblemRows(
      blobs,
      run,
      { email: 'Mail', age: 'Age' },
      { field: null, kind: null, offset: 0, limit: 2, known: { matching: 999, rows_checked: 999 } },
    );
    // The totals given are returned as they are: the rest of the file was not read to recount them.
    expect(page).toMatchObject({ matching: 999, rows_checked: 999 });
    expect(page!.rows.map((r) => r.row)).toEqual([1, 2]);
  });
});
