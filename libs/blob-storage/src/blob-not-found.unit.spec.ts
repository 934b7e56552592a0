import { BlobNotFoundError } from './blob-store.port';

describe('BlobNotFoundError after crossing a thread', () => {
  // structuredClone serializes as postMessage does between worker threads (piscina's rejections included).
  const crossed = (err: Error): Error => structuredClone(err);

  it('arrives as a plain Error, and is known again by its message, key included', () => {
    const arrived = crossed(new BlobNotFoundError('runs/r1/source'));
    expect(arrived).not.toBeInstanceOf(BlobNotFoundError);
    const revived = BlobNotFoundError.revived(arrived);
    expect(revived).toBeInstanceOf(BlobNotFoundError);
    expect(revived).toMatchObject({ key: 'runs/r1/source', message: 'No blob at runs/r1/source' });
  });

  it('leaves every other error as it is', () => {
    const others = [crossed(new Error('ENOENT: no such file')), crossed(new TypeError('No blob at x')), 'No blob at x', null];
    for (const other of others) expect(BlobNotFoundError.revived(other)).toBe(other);
    const original = new BlobNotFoundError('k');
    expect(BlobNotFoundError.revived(original)).toBe(original);
  });
});
