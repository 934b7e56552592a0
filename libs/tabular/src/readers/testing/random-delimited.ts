import fc from 'fast-check';

/** Bytes cut at random places (storage hands a file over in chunks of any size). */
export const cutInto = (bytes: Buffer, cuts: number[]): Buffer[] => {
  const at = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const out: Buffer[] = [];
  let from = 0;
  for (const c of at) {
    out.push(bytes.subarray(from, c));
    from = c;
  }
  out.push(bytes.subarray(from));
  return out.filter((b) => b.length > 0);
};

/** Tokens that move rows and fields: well-formed quoting, and the malformed kinds papaparse has rules of its own for. */
export const DELIMITED_TOKENS = [
  'a',
  'bc',
  'é日',
  ' ',
  '  ',
  ',',
  ',',
  ';',
  '\n',
  '\n',
  '\r\n',
  '\r',
  '"q"',
  '"a,b"',
  '"x\ny"',
  '""',
  '"say ""hi"""',
  '"x"y',
  '"x" ,',
  'a"b',
  '\t',
  '\u00a0',
];

/** One of DELIMITED_TOKENS (and `more`), drawn. */
export const delimitedToken = (...more: string[]) => fc.constantFrom(...DELIMITED_TOKENS, ...more);
