import { freeNow } from './free-now';

describe('freeNow', () => {
  it("detaches the arrays' buffers, every view of them included, so nothing holds their memory", () => {
    const numbers = new Float64Array(1024).fill(7);
    const half = numbers.subarray(0, 512);
    const flags = new Uint8Array(64);
    freeNow([half, flags, null, undefined]);
    expect(numbers.buffer.byteLength).toBe(0);
    expect(numbers.length).toBe(0);
    expect(half.length).toBe(0);
    expect(flags.length).toBe(0);
  });

  it('leaves Node Buffers (one may share a pool) and shared memory alone', () => {
    const pooled = Buffer.from('abc');
    const shared = new Float64Array(new SharedArrayBuffer(64));
    shared[0] = 1;
    freeNow([pooled, shared]);
    expect(pooled.toString()).toBe('abc');
    expect(shared[0]).toBe(1);
  });

  it('takes a buffer already freed, or one of no bytes, without complaint', () => {
    const numbers = new Float64Array(8);
    freeNow([numbers]);
    expect(() => freeNow([numbers, new Float64Array(0)])).not.toThrow();
  });
});
