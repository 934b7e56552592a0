import { Piscina } from 'piscina';
import { buffersIn, movedResult } from './moved-buffers';

describe('buffersIn', () => {
  it('finds the buffer under each typed array of plain objects and arrays, each once', () => {
    const a = new Float64Array(4);
    const b = new Uint8Array(8);
    const alsoA = new Float64Array(a.buffer, 8, 1);
    const found = buffersIn({ rows: 3, sets: [{ numbers: a, prefixes: null, keys: ['x'] }, { numbers: alsoA }], bits: { f: b } });
    expect(found).toHaveLength(2);
    expect(found).toContain(a.buffer);
    expect(found).toContain(b.buffer);
  });

  it('leaves what the sender cannot give up: Node Buffers (pooled), shared memory, and the insides of other objects', () => {
    const pooled = Buffer.from('abc');
    const shared = new Float64Array(new SharedArrayBuffer(16));
    class Holder {
      inner = new Uint8Array(4);
    }
    expect(buffersIn({ pooled, shared, holder: new Holder(), map: new Map([[1, new Uint8Array(2)]]) })).toEqual([]);
  });

  it("wraps a worker's result so that piscina moves its typed arrays and hands over the result itself", () => {
    const result = { rows: 2, sets: [{ numbers: new Float64Array(2), keys: ['k'] }] };
    const wrapped = movedResult(result) as Record<symbol, unknown>;
    expect(wrapped[Piscina.valueSymbol]).toBe(result);
    expect(wrapped[Piscina.transferableSymbol]).toEqual([result.sets[0].numbers.buffer]);
    // Marked movable: piscina transfers the list instead of cloning it (its own check, by an unexported symbol).
    expect(Object.getOwnPropertySymbols(wrapped).length).toBeGreaterThan(0);
  });
});
