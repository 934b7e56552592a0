import { outputByteLimit } from './output-limit';

describe('outputByteLimit', () => {
  const settings = { maxUploadBytes: 1_000, maxOutputRatio: 64 };

  it("is the ratio times the source's size once that passes the largest upload", () => {
    expect(outputByteLimit(100, settings)).toBe(6_400);
    expect(outputByteLimit(1_000_000, { maxUploadBytes: 1_000, maxOutputRatio: 2 })).toBe(2_000_000);
  });

  it('is never less than the largest upload (a small source, a source whose size is unknown)', () => {
    expect(outputByteLimit(10, settings)).toBe(1_000);
    expect(outputByteLimit(0, settings)).toBe(1_000);
    expect(outputByteLimit(null, settings)).toBe(1_000);
  });
});
