import { BlobNotFoundError, BlobTooLargeError, revivedBlobError } from './blob-store.port';

// structuredClone serializes as postMessage does between worker threads (piscina's rejections included).
const crossed = (err: Error): Error => structuredClone(err);

describe('BlobNotFoundError after crossing a thread', () => {
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

describe('BlobTooLargeError after crossing a thread', () => {
  it('arrives as a plain Error, and is known again by its message, the limit included', () => {
    const arrived = crossed(new BlobTooLargeError(123_456));
    expect(arrived).not.toBeInstanceOf(BlobTooLargeError);
    const revived = BlobTooLargeError.revived(arrived);
    expect(revived).toBeInstanceOf(BlobTooLargeError);
    expect(revived).toMatchObject({ maxBytes: 123_456, message: 'The body is larger than 123456 bytes' });
  });

  it('leaves every other error as it is', () => {
    const others = [
      crossed(new Error('The body is larger than many bytes')),
      crossed(new Error('The body is larger than 10 bytes, and more')),
      crossed(new RangeError('The body is larger than 10 bytes')),
      null,
    ];
    for (const other of others) expect(BlobTooLargeError.revived(other)).toBe(other);
  });
});

describe('revivedBlobError', () => {
  it('revives either kind and leaves the rest', () => {
    expect(revivedBlobError(crossed(new BlobNotFoundError('k')))).toBeInstanceOf(BlobNotFoundError);
    expect(revivedBlobError(crossed(new BlobTooLargeError(9)))).toBeInstanceOf(BlobTooLargeError);
    const other = crossed(new Error('disk on fire'));
    expect(revivedBlobError(other)).toBe(other);
  });
});
