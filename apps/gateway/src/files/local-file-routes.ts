import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { setTimeout as delay } from 'node:timers/promises';
import {
  BLOB_KEYS,
  BlobExistsError,
  BlobNotFoundError,
  BlobTooLargeError,
  LOCAL_BLOB_ROUTE,
  isValidBlobKey,
  type LocalBlobStore,
  type UrlSigner,
} from '@app/blob-storage';
import type { AppConfig } from '@app/config';
import type { SourceArrival } from '@app/cpu-work';
import { CommandRefused, STAGES, runError } from '@app/domain';
import { UPLOAD_LEASE_TTL_MS, holdLease, leaseHolder, uploadLease, type LeaseStore } from '@app/leases';
import type { CommandBus, QueryBus } from '@nestjs/cqrs';
import { ApplyRunCommand, LoadRunQuery } from '@app/run-commands';
import type { ProjectionWaiter } from '@app/read-model';
import { contentTypeOf } from '@app/run-links';
import { authFailureThrottle } from '../http/auth-throttle';
import { outputRetentionEnded } from './output-retention';

interface Deps {
  config: AppConfig;
  signer: UrlSigner;
  blobs: LocalBlobStore;
  commandBus: CommandBus;
  queryBus: QueryBus;
  leases: LeaseStore;
  waiter: ProjectionWaiter;
  /** Present when this process also reads sources: told as an upload begins. */
  sourceArrival: SourceArrival | null;
}

/** How long a PUT waits for another upload of the same run this process is receiving to end, before 409 upload_in_progress. */
const RETRY_WAIT_MS = 2_000;
/** How long a recorded upload's 200 waits for the run's document to show it (read-your-writes), at most. */
const UPLOAD_PROJECTION_WAIT_MS = 1_000;
/** The 409's Retry-After. */
const RETRY_AFTER_SECONDS = 2;

const envelope = (reply: FastifyReply, request: FastifyRequest, status: number, code: string, type: string, message: string) =>
  reply
    .status(status)
    .header('content-type', 'application/json; charset=utf-8')
    .send({ error: { code, message, type, request_id: String(request.id) } });

/**
 * Embedded mode's stand-in for S3 pre-signed URLs: PUT and GET on /files/<key>, allowed
 * only with a valid, unexpired signature for that method and key. A completed upload of
 * a run's source starts its processing at once.
 */
export function registerLocalFileRoutes(fastify: FastifyInstance, deps: Deps): void {
  void fastify.register(async (scope) => {
    // Upload bodies are streamed to storage untouched (the route checks their content type: upload_content_type_mismatch).
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_req, _payload, done) => done(null));

    // A bad signature is a guess: counted per client address (the HTTP edge refuses an address past the limit with 429).
    const throttle = authFailureThrottle(deps.config);
    const authorize = async (request: FastifyRequest, reply: FastifyReply, method: 'PUT' | 'GET'): Promise<string | null> => {
      const key = (request.params as { '*': string })['*'];
      const q = request.query as Record<string, string | undefined>;
      if (!isValidBlobKey(key) || q.method !== method) {
        await throttle.recordFailure(request.ip);
        envelope(reply, request, 403, 'invalid_signature', 'authorization', 'This URL is not valid for this request.');
        return null;
      }
      const check = deps.signer.check(method, key, Number(q.expires), q.signature ?? '');
      if (check === 'invalid') await throttle.recordFailure(request.ip);
      if (check !== 'valid') {
        envelope(
          reply,
          request,
          403,
          check === 'expired' ? 'url_expired' : 'invalid_signature',
          'authorization',
          check === 'expired' ? 'This URL has expired.' : 'This URL is not valid for this request.',
        );
        return null;
      }
      return key;
    };

    /** Records the run's upload (SourceUploaded): processing starts. A refusal is answered as a 409. */
    const completeUpload = async (request: FastifyRequest, runId: string, organizationId: string, size: number) => {
      try {
        const result = await deps.commandBus.execute(
          new ApplyRunCommand(
            runId,
            { type: 'CompleteUpload', size_bytes: size, at: new Date().toISOString() },
            { organizationId, correlationId: String(request.id), causationId: String(request.id) },
          ),
        );
        // Read-your-writes, as the API's own writes: once the 200 is sent, a GET of the run shows it processing.
        // Best effort, and shorter than theirs: the upload is recorded, and this wait holds the run's upload lease.
        await deps.waiter.waitFor(runId, result.revision, UPLOAD_PROJECTION_WAIT_MS).catch(() => false);
        return null;
      } catch (err) {
        if (err instanceof CommandRefused) return err;
        throw err;
      }
    };

    /**
     * An upload over MAX_UPLOAD_BYTES: the run fails with source_file_too_large (the spec's "oversized
     * file" is a terminal failure, with its webhook, as with S3 storage: bucket-upload.watcher.ts), and
     * the PUT is answered 413. A run that is no longer waiting (a race) is left as it is.
     */
    const refuseTooLarge = async (
      request: FastifyRequest,
      reply: FastifyReply,
      runId: string | null,
      organizationId: string,
      said: string,
    ) => {
      const message = `The file is larger than the maximum of ${deps.config.maxUploadBytes} bytes.`;
      if (runId) {
        const error = runError('fileTooLarge', STAGES.ingestion, {
          message: `The uploaded file ${said}; at most ${deps.config.maxUploadBytes} bytes are allowed.`,
        });
        const context = { organizationId, correlationId: String(request.id), causationId: String(request.id) };
        await deps.commandBus
          .execute(new ApplyRunCommand(runId, { type: 'FailRun', at: new Date().toISOString(), error }, context))
          .catch((err: unknown) => {
            // The upload is refused all the same: a run not failed now (the store out of reach) waits, and
            // the sweeper fails it when its upload expires. One no longer waiting (a race) stays as it is.
            if (!(err instanceof CommandRefused)) request.log.error({ err }, `Run ${runId}: an oversized upload could not fail the run`);
          });
      }
      return envelope(reply, request, 413, 'upload_too_large', 'invalid_request', message);
    };

    const uploadInProgress = (request: FastifyRequest, reply: FastifyReply) => {
      request.raw.resume();
      return envelope(
        reply.header('retry-after', String(RETRY_AFTER_SECONDS)),
        request,
        409,
        'upload_in_progress',
        'conflict',
        "Another upload of this run's file is under way, or its upload window is being closed. Wait for that answer; if an earlier upload's connection dropped, send it again in a few seconds.",
      );
    };

    /** Runs whose upload this process is receiving now (each under its upload lease): the request, and its end. */
    const receiving = new Map<string, { request: FastifyRequest; ended: Promise<unknown> }>();
    /**
     * Whether `runId`'s upload may be received now. An upload this process is still receiving is
     * waited for, for a while: a client that retries at once after its connection dropped may be
     * here before this process has seen the drop, and that upload then ends as soon as its stream
     * notices (at once when the drop was already seen).
     */
    const free = async (runId: string): Promise<boolean> => {
      const current = receiving.get(runId);
      if (!current) return true;
      const ended = current.ended.catch(() => undefined);
      await (current.request.raw.socket.destroyed ? ended : Promise.race([ended, delay(RETRY_WAIT_MS, undefined, { ref: false })]));
      return !receiving.has(runId);
    };

    /** The body of a PUT to `key` (a run's source, `runId`), under the run's upload lease. */
    const receive = async (request: FastifyRequest, reply: FastifyReply, key: string, runId: string | null) => {
      const run = runId ? (await deps.queryBus.execute(new LoadRunQuery(runId))).state : null;
      // As an S3 pre-signed PUT, which signs the Content-Type it was made with: a client tried here
      // against the embedded store must not meet its first refusal in production.
      const contentType = run ? contentTypeOf(run.filename) : null;
      if (contentType !== null && (request.headers['content-type'] ?? '').trim() !== contentType) {
        request.raw.resume();
        return envelope(
          reply,
          request,
          403,
          'upload_content_type_mismatch',
          'authorization',
          `Send the Content-Type header exactly as upload.headers gives it ("${contentType}"): the upload URL allows that one only.`,
        );
      }
      // The upload already landed (a client re-sending after a lost answer or a crash): as a
      // pre-signed S3 PUT would, the same bytes answer 200; nothing starts a second time.
      const stored = run && runId ? await deps.blobs.stat(key) : null;
      const storedBody = stored ? await openIfStillThere(deps.blobs, key) : null;
      if (run && runId && stored && storedBody) {
        const same = await sameBytes(storedBody, stored.size, request);
        // Landed but never recorded (the process died in between): record it now, once.
        const refused = run.status === 'awaiting_upload' ? await completeUpload(request, runId, run.organization_id, stored.size) : null;
        if (refused && refused.code !== 'upload_already_completed')
          return envelope(reply, request, 409, refused.code, 'conflict', refused.message);
        if (!same)
          return envelope(
            reply,
            request,
            409,
            'upload_content_differs',
            'conflict',
            'A different file was already uploaded for this run; it is the one processed. Create a new run to send another file.',
          );
        return reply.status(200).send();
      }
      if (!run || run.status !== 'awaiting_upload') {
        request.raw.resume();
        return envelope(reply, request, 409, 'upload_not_expected', 'conflict', 'This run is not waiting for an upload.');
      }
      const declared = Number(request.headers['content-length'] ?? NaN);
      if (declared > deps.config.maxUploadBytes) {
        request.raw.resume();
        return refuseTooLarge(request, reply, runId, run.organization_id, `has ${declared} bytes`);
      }
      // A body sent in chunks declares no size: taken as a big one, whose read may take two threads.
      const arriving = deps.sourceArrival?.sourceArriving(run, Number.isSafeInteger(declared) ? declared : Infinity) ?? null;
      let size: number;
      try {
        ({ size } = await deps.blobs.put(key, request.raw, {
          maxBytes: deps.config.maxUploadBytes,
          ifNoneMatch: true,
          // Each piece once it is in the file, moved to the scan that follows the upload rather than copied.
          onChunkWritten: arriving ? (piece) => arriving.bytes(piece) : undefined,
        }));
      } catch (err) {
        arriving?.lost();
        if (err instanceof BlobTooLargeError)
          return refuseTooLarge(request, reply, runId, run.organization_id, `has more than ${deps.config.maxUploadBytes} bytes`);
        if (err instanceof BlobExistsError)
          return envelope(reply, request, 409, 'upload_already_completed', 'conflict', 'The source file was already uploaded.');
        throw err;
      }
      // Before the upload is recorded: ingestion, which that starts, then finds the scan that followed it.
      arriving?.arrived(size);
      const refused = await completeUpload(request, runId!, run.organization_id, size);
      if (refused) {
        arriving?.lost();
        return envelope(reply, request, 409, refused.code, 'conflict', refused.message);
      }
      return reply.status(200).send();
    };

    const receiveLeased = async (request: FastifyRequest, reply: FastifyReply, key: string, runId: string) => {
      const lease = await holdLease(deps.leases, uploadLease(runId), leaseHolder('upload'), UPLOAD_LEASE_TTL_MS);
      if (!lease) return uploadInProgress(request, reply);
      try {
        return await receive(request, reply, key, runId);
      } finally {
        await lease.release();
      }
    };

    scope.put(`${LOCAL_BLOB_ROUTE}/*`, async (request, reply) => {
      const key = await authorize(request, reply, 'PUT');
      if (!key) return reply;
      const runId = BLOB_KEYS.runIdOfSource(key);
      if (!runId) return receive(request, reply, key, null);
      // Held from before the run is read until its upload is recorded: the sweeper does not
      // expire a run under an upload that began in time, however long the body takes. The
      // holder is this process (stable across restarts: one that died mid-upload takes the
      // lease back at once when the client sends again); its own uploads are told apart here.
      // (Looked at again after the wait: another retry may have taken it meanwhile.)
      if (!(await free(runId)) || receiving.has(runId)) return uploadInProgress(request, reply);
      const ended = receiveLeased(request, reply, key, runId);
      receiving.set(runId, { request, ended });
      try {
        return await ended;
      } finally {
        if (receiving.get(runId)?.request === request) receiving.delete(runId);
      }
    });

    scope.get(`${LOCAL_BLOB_ROUTE}/*`, async (request, reply) => {
      if (await outputRetentionEnded(request, deps))
        return envelope(reply, request, 410, 'file_expired', 'not_found', "The file's retention ended; it was deleted.");
      const key = await authorize(request, reply, 'GET');
      if (!key) return reply;
      const stat = await deps.blobs.stat(key);
      const body = stat ? await openIfStillThere(deps.blobs, key) : null;
      if (!stat || !body) return envelope(reply, request, 404, 'not_found', 'not_found', 'The file does not exist (any more).');
      const name = downloadNameOf(key);
      const type = key.endsWith('.json')
        ? 'application/json'
        : key.endsWith('.csv')
          ? 'text/csv; charset=utf-8'
          : 'application/octet-stream';
      return reply
        .header('content-type', type)
        .header('content-length', String(stat.size))
        .header('content-disposition', `attachment; filename="${name}"`)
        .send(body);
    });
  });
}

/** The stored file's stream, or null when it was deleted since it was looked at (its run deleted meanwhile). */
const openIfStillThere = (blobs: LocalBlobStore, key: string): Promise<Readable | null> =>
  blobs.openRead(key).catch((err: unknown) => {
    if (err instanceof BlobNotFoundError) return null;
    throw err;
  });

/** SHA-256 of a stream, its size, and whether it went past `limit` bytes (it is then drained unread). */
async function digest(stream: Readable, limit: number): Promise<{ hash: string; size: number; over: boolean }> {
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size <= limit) hash.update(chunk);
  }
  return { hash: hash.digest('hex'), size, over: size > limit };
}

/**
 * Whether the request's body is byte for byte the stored file (of `storedSize` bytes). A
 * declared length that differs answers at once (the body is drained, not read); otherwise both
 * are hashed as they stream, reading no more of the body than the stored file's size.
 */
async function sameBytes(stored: Readable, storedSize: number, request: FastifyRequest): Promise<boolean> {
  const declared = request.headers['content-length'];
  if (declared !== undefined && Number(declared) !== storedSize) {
    stored.destroy();
    request.raw.resume();
    return false;
  }
  const [ours, theirs] = await Promise.all([digest(stored, Infinity), digest(request.raw, storedSize)]);
  return !theirs.over && theirs.size === ours.size && theirs.hash === ours.hash;
}

/**
 * The name a download is saved under: a run's output as `{run id}.{json|csv}`, the name S3 gives it
 * (run-links.ts), so that a customer's files are named alike whichever store served them.
 */
export function downloadNameOf(key: string): string {
  const output = /^runs\/([^/]+)\/output\.(json|csv)$/.exec(key);
  return output ? `${output[1]}.${output[2]}` : key.split('/').slice(-2).join('-');
}
