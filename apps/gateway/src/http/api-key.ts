import { createHash, randomBytes, randomUUID } from 'node:crypto';

/** API keys are random, shown once, and stored only as their SHA-256 (they carry 256 bits, so no slow hash is needed). */
export const newApiKey = (): { id: string; key: string; hash: string } => {
  const key = `tsk_${randomBytes(32).toString('base64url')}`;
  return { id: randomUUID(), key, hash: hashApiKey(key) };
};

export const hashApiKey = (key: string): string => createHash('sha256').update(key).digest('hex');

/**
 * How many Authorization headers a request carries (Node keeps only the first in
 * `headers`). More than one is refused: a proxy in front may have read another one.
 */
export const authorizationHeaderCount = (rawHeaders: readonly string[]): number => {
  let count = 0;
  for (let i = 0; i < rawHeaders.length; i += 2)
    if (rawHeaders[i].length === 13 && rawHeaders[i].toLowerCase() === 'authorization') count++;
  return count;
};

export const bearerToken = (header: string | string[] | undefined): string | null => {
  const value = Array.isArray(header) ? header[0] : header;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(value ?? '');
  return match ? match[1] : null;
};
