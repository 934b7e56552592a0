import type { BlobStore } from '@app/blob-storage';
import type { FieldDefinition } from '@app/contracts';
import type { CpuWork, DuplicateRowsFinder, ProblemCounter } from '@app/cpu-work';
import { noProblemsByKind, type RunState } from '@app/domain';
import { LISTED_ROWS_DISAGREE, ProblemSegmentsBuilder, SEGMENT_ROWS, type ProblemRowsQuery } from '@app/run-source';
import { ReviewPreviewService } from './review-preview.service';

/**
 * A page of rows with problems asked while the count of the same mapping runs: it waits for
 * the count and then reads the rows the count lists for it (a page over every field) or starts
 * at the segment that holds its rows (a page by field), rather than reading the whole file
 * beside the count. The file work is faked: what matters is what the page asks of it.
 */
const FIELDS: Record<string, FieldDefinition> = {
  email: { description: 'e', data_type: 'email', is_required: true },
  age: { description: 'a', data_type: 'integer', is_required: false },
};
const MAPPING = { email: 'Mail', age: 'Age' };

const run = {
  id: 'r1',
  status: 'awaiting_review',
  review_state: 'active',
  review_expires_at: new Date(Date.now() + 3_600_000).toISOString(),
  files_purged_at: null,
  schema: { fields: FIELDS },
  source_headers: ['Mail', 'Age'],
  mapping_rule: MAPPING,
  value_fixes: [],
  input_has_header: true,
  sheet: null,
  output_format: 'json',
} as unknown as RunState;

/** Three segments: every row of the second and third has a bad e-mail; the first has none. */
function tally() {
  const builder = new ProblemSegmentsBuilder(['email', 'age']);
  for (let row = 1; row <= 3 * SEGMENT_ROWS; row++) builder.row([row > SEGMENT_ROWS ? 'type' : null, null]);
  const bad = 2 * SEGMENT_ROWS;
  return {
    segments: builder.result(),
    rows_checked: 3 * SEGMENT_ROWS,
    rows_with_problems: bad,
    problems_by_field: { email: bad, age: 0 },
    rows_by_kind: { ...noProblemsByKind(), type: bad },
    problems_by_field_and_kind: { email: { ...noProblemsByKind(), type: bad }, age: noProblemsByKind() },
  };
}

function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (err: Error) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

describe('ReviewPreviewService: a page asked while its count runs', () => {
  const page = { field: null, kind: null, offset: SEGMENT_ROWS + 40, limit: 20 } satisfies ProblemRowsQuery;

  function service(count: Promise<ReturnType<typeof tally> | null>, answer: (query: ProblemRowsQuery) => void = () => undefined) {
    const asked: ProblemRowsQuery[] = [];
    const cpu = {
      run: jest.fn(async (task: string, args: { query: ProblemRowsQuery }) => {
        if (task !== 'findProblemRows') throw new Error(`unexpected task ${task}`);
        asked.push(args.query);
        answer(args.query);
        return { rows: [], matching: 0, rows_checked: 0 };
      }),
    } as unknown as CpuWork;
    const counter = { count: jest.fn(() => count) } as unknown as ProblemCounter;
    const preview = new ReviewPreviewService({} as BlobStore, cpu, {} as DuplicateRowsFinder, counter);
    return { preview, asked };
  }

  it('waits for the count, then asks for the rows the count says the page holds', async () => {
    const count = deferred<ReturnType<typeof tally> | null>();
    const { preview, asked } = service(count.promise);
    expect((await preview.countProblems(run, MAPPING, false)).status).toBe('counting');

    const answered = preview.problemRows(run, MAPPING, page);
    await new Promise((r) => setImmediate(r));
    expect(asked).toEqual([]); // nothing read beside the count

    count.resolve(tally());
    await answered;
    expect(asked).toHaveLength(1);
    // Every row after the first segment has a problem: match 4,137 (offset 4,136) is row 4,096 + 4,137.
    expect(asked[0].known).toEqual({ matching: 2 * SEGMENT_ROWS, rows_checked: 3 * SEGMENT_ROWS });
    expect(asked[0].rows).toEqual(Array.from({ length: 20 }, (_, i) => SEGMENT_ROWS + page.offset + 1 + i));
    expect(asked[0].start).toBeUndefined();
  });

  it('starts a page of one field at the segment that holds it (one field is cheap to check)', async () => {
    const { preview, asked } = service(Promise.resolve(tally()));
    await preview.countProblems(run, MAPPING, true);
    await preview.problemRows(run, MAPPING, { ...page, field: 'email' });
    // Match 4,137 is in the third segment: the second's 4,096 matches come before its first row.
    expect(asked[0].start).toEqual({ row: 2 * SEGMENT_ROWS + 1, matchesBefore: SEGMENT_ROWS });
    expect(asked[0].rows).toBeUndefined();
  });

  it('answers from the segment when the listed rows do not make the page, and starts there from then on', async () => {
    const disagree = (query: ProblemRowsQuery) => {
      if (query.rows) throw new Error(`${LISTED_ROWS_DISAGREE}: row 8233 was counted with a problem that a page does not find`);
    };
    const { preview, asked } = service(Promise.resolve(tally()), disagree);
    await preview.countProblems(run, MAPPING, true);
    await expect(preview.problemRows(run, MAPPING, page)).resolves.toEqual({ rows: [], matching: 0, rows_checked: 0 });
    expect(asked.map((q) => [q.rows?.length, q.start])).toEqual([
      [20, undefined],
      [undefined, { row: 2 * SEGMENT_ROWS + 1, matchesBefore: SEGMENT_ROWS }],
    ]);
    await preview.problemRows(run, MAPPING, { ...page, offset: 0 });
    expect(asked[2].rows).toBeUndefined();
    expect(asked[2].start).toEqual({ row: SEGMENT_ROWS + 1, matchesBefore: 0 });
  });

  it('does not read the page again when the file cannot be read', async () => {
    const { preview, asked } = service(Promise.resolve(tally()), () => {
      throw new Error('ENOENT: the source is gone');
    });
    await preview.countProblems(run, MAPPING, true);
    await expect(preview.problemRows(run, MAPPING, page)).rejects.toMatchObject({ status: 503 });
    expect(asked).toHaveLength(1);
  });

  it('starts at the segment when the rows kept do not hold as many matches as the count says', async () => {
    const counted = tally();
    const { preview, asked } = service(
      Promise.resolve({ ...counted, segments: { ...counted.segments, rowKinds: new Uint8Array(3 * SEGMENT_ROWS) } }),
    );
    await preview.countProblems(run, MAPPING, true);
    await preview.problemRows(run, MAPPING, page);
    expect(asked[0].rows).toBeUndefined();
    expect(asked[0].start).toEqual({ row: 2 * SEGMENT_ROWS + 1, matchesBefore: SEGMENT_ROWS });
  });

  it('reads the whole file when the count it waited for failed', async () => {
    const count = deferred<ReturnType<typeof tally> | null>();
    const { preview, asked } = service(count.promise);
    await preview.countProblems(run, MAPPING, false);
    const answered = preview.problemRows(run, MAPPING, page);
    count.reject(new Error('disk gone'));
    await answered;
    expect(asked).toEqual([page]);
  });

  it('does not wait for a count of another mapping', async () => {
    const count = deferred<ReturnType<typeof tally> | null>();
    const { preview, asked } = service(count.promise);
    await preview.countProblems(run, { email: 'Mail' }, false);
    await preview.problemRows(run, MAPPING, page);
    expect(asked).toEqual([page]);
    count.resolve(null);
  });
});
