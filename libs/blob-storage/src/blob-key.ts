/** Keys are relative paths of safe characters; anything else (`..`, absolute paths) is refused. */
const KEY_RE = /^[A-Za-z0-9][A-Za-z0-9._-]*(\/[A-Za-z0-9][A-Za-z0-9._-]*)*$/;

export const isValidBlobKey = (key: string): boolean => KEY_RE.test(key) && !key.split('/').some((p) => p === '..' || p === '.');

export function assertValidBlobKey(key: string): void {
  if (!isValidBlobKey(key)) throw new Error(`Invalid blob key: ${key}`);
}

/** Where a run's files live. */
export const BLOB_KEYS = {
  source: (runId: string) => `runs/${runId}/source`,
  output: (runId: string, format: string) => `runs/${runId}/output.${format}`,
  /** Records an AI provider extracted, or a dry run's synthetic records, as CSV. */
  rows: (runId: string) => `runs/${runId}/rows.csv`,
  runIdOfSource: (key: string): string | null => /^runs\/([0-9a-f-]{36})\/source$/.exec(key)?.[1] ?? null,
};
