import Papa from 'papaparse';
import { csvChunks, jsonArrayChunks, type OutputRecord } from './output-writers';

async function* batches(...bs: OutputRecord[][]) {
  for (const b of bs) yield b;
}
/** Records serialized one by one, as the output step hands them to the JSON writer. */
async function* lines(...bs: OutputRecord[][]) {
  for (const b of bs) yield b.map((r) => JSON.stringify(r));
}
const collect = async (g: AsyncIterable<string>) => {
  let s = '';
  for await (const c of g) s += c;
  return s;
};

describe('output writers', () => {
  it('writes a JSON array of records across batches', async () => {
    const text = await collect(jsonArrayChunks(lines([{ a: 1, b: 'x' }], [], [{ a: null, b: 'y"z' }])));
    expect(JSON.parse(text)).toEqual([
      { a: 1, b: 'x' },
      { a: null, b: 'y"z' },
    ]);
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
