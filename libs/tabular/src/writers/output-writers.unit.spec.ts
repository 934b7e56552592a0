import Papa from 'papaparse';
import { Readable } from 'node:stream';
import fc from 'fast-check';
import { csvChunks, jsonArrayBody, jsonArrayFramed, jsonItemBytes, jsonString, type OutputRecord } from './output-writers';

const jsonArrayChunks = (items: AsyncIterable<string[]>) => jsonArrayFramed(jsonArrayBody(items));

async function* batches(...bs: OutputRecord[][]) {
  for (const b of bs) yield b;
}
/** Records serialized one by one, as the output step hands them to the JSON writer. */
async function* lines(...bs: OutputRecord[][]) {
  for (const b of bs) yield b.map((r) => JSON.stringify(r));
}
const collect = async (g: AsyncIterable<string | Buffer>) => {
  let s = '';
  for await (const c of g) s += c.toString();
  return s;
};

describe('output writers', () => {
  it('writes a string as JSON.stringify does, whatever it holds (quotes, backslashes, control characters, surrogates)', () => {
    const tricky = fc.constantFrom(
      '"',
      '\\',
      '\n',
      '\u0000',
      '\u001f',
      '\u007f',
      '\u2028',
      '\ud83d',
      '\ude00',
      '\ud83d\ude00',
      'ü',
      '€',
      'a',
    );
    const value = fc.oneof(
      fc.string({ unit: 'binary' }),
      fc.array(tricky, { maxLength: 6 }).map((parts) => parts.join('')),
    );
    fc.assert(
      fc.property(value, (s) => expect(jsonString(s)).toBe(JSON.stringify(s))),
      { numRuns: 2000 },
    );
    expect(jsonString('plain value')).toBe('"plain value"');
  });

  it('writes a JSON array of records across batches', async () => {
    const text = await collect(jsonArrayChunks(lines([{ a: 1, b: 'x' }], [], [{ a: null, b: 'y"z' }])));
    expect(JSON.parse(text)).toEqual([
      { a: 1, b: 'x' },
      { a: null, b: 'y"z' },
    ]);
  });
  it('writes one item per line, the same bytes whether framed from text or from the bytes of parts joined', async () => {
    const whole = await collect(jsonArrayChunks(lines([{ a: 1 }, { a: 2 }], [{ a: 3 }])));
    expect(whole).toBe('[\n{"a":1},\n{"a":2},\n{"a":3}\n]\n');
    const partA = await collect(jsonArrayBody(lines([{ a: 1 }], [{ a: 2 }])));
    const partB = await collect(jsonArrayBody(lines([], [{ a: 3 }])));
    const joined = Readable.from([Buffer.from(''), Buffer.from(partA), Buffer.from(partB)], { objectMode: true }) as AsyncIterable<Buffer>;
    let bytes = '';
    for await (const c of jsonArrayFramed(joined)) bytes += c.toString();
    expect(bytes).toBe(whole);
  });
  it("writes a batch's items as the UTF-8 of the joined text, whatever characters they hold", () => {
    const item = fc.oneof(fc.string({ unit: 'grapheme' }), fc.constantFrom('Yılmaz', '’', 'é', '€', '😀', ''));
    fc.assert(
      fc.property(
        fc.array(
          item.map((v) => JSON.stringify(v)),
          { maxLength: 8 },
        ),
        (items) => {
          const bytes = jsonItemBytes(items);
          expect(bytes.equals(Buffer.from(items.map((i) => ',\n' + i).join('')))).toBe(true);
        },
      ),
      { numRuns: 1000 },
    );
  });
  it('writes CSV rows without the header for a later part', async () => {
    expect(await collect(csvChunks(['a'], batches([{ a: 'x' }]), { header: false }))).toBe('x\r\n');
  });
  it('writes an empty JSON array', async () => {
    expect(JSON.parse(await collect(jsonArrayChunks(lines())))).toEqual([]);
  });
  it('writes CSV with a header row and quoting', async () => {
    const text = await collect(csvChunks(['a', 'b'], batches([{ a: 'x,1', b: null }], [{ a: 'line\nbreak', b: 2 }])));
    expect(Papa.parse(text.trim()).data).toEqual([
      ['a', 'b'],
      ['x,1', ''],
      ['line\nbreak', '2'],
    ]);
  });
});
