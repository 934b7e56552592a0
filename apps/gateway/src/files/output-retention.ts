import type { FastifyRequest } from 'fastify';
import type { UrlSigner } from '@app/blob-storage';
import type { QueryBus } from '@nestjs/cqrs';
import { LoadRunQuery } from '@app/run-commands';

const OUTPUT_KEY = /^runs\/([0-9a-f-]{36})\/output\.[a-z]+$/;

/**
 * A signed download of a run's output after its retention ended (`file_retention_until`
 * passed, or the sweeper deleted the files): the file is gone for good, which the route
 * answers with 410 rather than the URL's own 403 url_expired or a bare 404. Only a URL the
 * service signed learns it; a wrong signature is left to the route's usual check.
 */
export async function outputRetentionEnded(
  request: FastifyRequest,
  deps: { signer: UrlSigner; queryBus: QueryBus },
  now = new Date(),
): Promise<boolean> {
  const key = (request.params as { '*': string })['*'];
  const q = request.query as Record<string, string | undefined>;
  const runId = OUTPUT_KEY.exec(key)?.[1];
  if (!runId || q.method !== 'GET' || deps.signer.check('GET', key, Number(q.expires), q.signature ?? '', now) === 'invalid') return false;
  const { state } = await deps.queryBus.execute(new LoadRunQuery(runId));
  if (!state || state.output_key !== key) return false;
  return !!state.files_purged_at || (state.file_retention_until !== null && Date.parse(state.file_retention_until) <= now.getTime());
}
