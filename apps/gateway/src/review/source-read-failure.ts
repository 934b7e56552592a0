import type { Logger } from '@nestjs/common';
import { BlobNotFoundError } from '@app/blob-storage';
import { runFileKeys, type RunState } from '@app/domain';
import { ApiError } from '../http/api-error';

export const filesDeleted = () =>
  new ApiError(410, 'files_deleted', 'not_found', "The run's files were deleted when their retention ended.");

/**
 * What a review answers when a read of the run's source fails. One of the run's own files gone
 * was deleted by retention (nothing else deletes them), so it is 410 at once, even while the
 * projection does not show the purge yet; any other failure, a missing file of no known key
 * included, is logged and is a 503 to retry.
 */
export function sourceReadFailure(logger: Logger, run: RunState, what: string, err: unknown): ApiError {
  if (err instanceof BlobNotFoundError && runFileKeys(run).includes(err.key)) return filesDeleted();
  logger.error(`Run ${run.id}: ${what}: ${(err as Error).message}`);
  return new ApiError(503, 'source_unavailable', 'server', 'The uploaded file cannot be read right now. Try again shortly.');
}
