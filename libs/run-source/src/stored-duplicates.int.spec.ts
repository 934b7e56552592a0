import { Readable } from 'node:stream';
import type { LocalBlobStore } from '@app/blob-storage';
import { withTempBlobStore } from './testing/temp-blob-store';
import type { FieldDefinition } from '@app/contracts';
import { duplicatesKeyOf, runFileKeys, type RunState } from '@app/domain';
import { findDuplicateRows } from './duplicate-values';
import { duplicateRowsOf } from './stored-duplicates';
import { storedCsvRun } from './testing/stored-csv-run';

/**
 * The duplicates pass's answer is kept beside the run's rows: asked again for the same run,
 * mapping and fixes it is read back (the source is not read: here it is gone), and anything
 * that could change the answer (a fix, another mapping) makes it be found again.
 */
const FIELDS: Record<string, FieldDefinition> = {
  code: { description: 'c', data_type: 'string', is_required: false, unique: true },
  name: { description: 'n', data_type: 'string', is_required: false },
};

describe('stored duplicates', () => {
  let blobs: LocalBlobStore;
  withTempBlobStore('stored-duplicates-', (b) => (blobs = b));

  it('reads back the answer for the same run, mapping and fixes, and finds it again when they change', async () => {
    const key = 'runs/d1/source';
    const csv = ['Code,Name', ...Array.from({ length: 3000 }, (_, i) => `${i % 1000 === 7 ? 'dup' : `c${i}`},n${i}`)].join('\n');
    const run = await storedCsvRun(blobs, 'd1', csv, FIELDS, ['Code', 'Name'], { value_fixes: [] });
    const mapping = { code: 'Code', name: 'Name' };

    const first = await duplicateRowsOf(blobs, run, mapping);
    expect(first).toEqual(await findDuplicateRows(blobs, run, mapping));
    expect(await blobs.stat(duplicatesKeyOf(key))).not.toBeNull();
    expect(runFileKeys(run)).toContain(duplicatesKeyOf(key));

    // Without the source, only the stored answer can give it.
    const source = await blobs.openRead(key);
    const bytes: Buffer[] = [];
    for await (const chunk of source) bytes.push(chunk as Buffer);
    await blobs.delete(key);
    expect(await duplicateRowsOf(blobs, run, { name: 'Name', code: 'Code' })).toEqual(first);

    // A fix changes values: the stored answer is not for it.
    const fixed = {
      ...run,
      value_fixes: [{ field: 'code', fix: { kind: 'cell', row: 8, before: 'dup', after: 'x' } }],
    } as unknown as RunState;
    await expect(duplicateRowsOf(blobs, fixed, mapping)).rejects.toThrow();
    await blobs.put(key, Readable.from([Buffer.concat(bytes)]));
    const refound = await duplicateRowsOf(blobs, fixed, mapping);
    expect(refound).toEqual(await findDuplicateRows(blobs, fixed, mapping));
    expect(refound).not.toEqual(first);
  });
});
