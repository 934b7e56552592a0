import { createHash, randomBytes, randomUUID } from 'node:crypto';

/** API keys are random, shown once, and stored only as their SHA-256 (they carry 256 bits, so no slow hash is needed). */
export const newApiKey = (): { id: string; key: string; hash: string } => {
  const key = `tsk_${randomBytes(32).toString('base64url')}`;
  return { id: randomUUID(), key, hash: hashApiKey(key) };
};

export const hashApiKey = (key: string): string => createHash('sha256').update(key).digest('hex');

/**
 * The values of a header, one per line the request sent it on, from Node's raw header lines (name,
 * value, name, value…). Node keeps only the first Authorization in `headers`, and joins the lines
 * of a header it does not know into one value ("x, y"): a header that must come once is counted here.
 */
export function headerLines(rawHeaders: readonly string[], lowerCaseName: string): string[] {
  const values: string[] = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2)
    if (rawHeaders[i].length === lowerCaseName.length && rawHeaders[i].toLowerCase() === lowerCaseName) values.push(rawHeaders[i + 1]);
  return values;
}

/** How many Authorization headers a request carries. More than one is refused: a proxy in front may have read another one. */
export const authorizationHeaderCount = (rawHeaders: readonly string[]): number => headerLines(rawHeaders, 'authorization').length;

export const bearerToken = (header: string | string[] | undefined): string | null => {
  const value = Array.isArray(header) ? header[0] : header;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(value ?? '');
  return match ? match[1] : null;
};
