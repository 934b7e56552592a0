import { createHash } from 'node:crypto';

/**
 * Names a set of source headers, whatever their order: the key under which a confirmed
 * mapping is remembered (a file with the same columns in another order gets it too).
 */
export function headersKey(headers: readonly string[]): string {
  return createHash('sha256')
    .update(JSON.stringify([...headers].sort()))
    .digest('base64url');
}
