import { Inject, Injectable } from '@nestjs/common';
import { BLOB_STORE, type BlobStore, type PresignedRequest } from '@app/blob-storage';
import type { UrlSigner } from '@app/blob-storage';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { fileExtension, isOutputGone, type RunState } from '@app/domain';
import { URL_SIGNER } from '@app/blob-storage';
import { BoundedCache } from './bounded-cache';

/** Review links do not expire by themselves: the run's review_expires_at decides what the page allows. */
const REVIEW_LINK_NO_EXPIRY = 0;
/** Runs whose review link is kept (about 200 bytes each). */
const REVIEW_URLS_KEPT = 10_000;
/** Download URLs kept, each for the second it was made in. */
const DOWNLOAD_URLS_KEPT = 1_000;

/**
 * Every URL the API hands out about a run, built from PUBLIC_BASE_URL and signed.
 *
 * Signing is cached (docs/decisions.md, "The cost of one request"): a polled run's GET would
 * otherwise compute two HMACs and parse a URL on every poll. Both caches hand out only what
 * would be computed again: a review link depends on nothing but the run id (its signature
 * never expires, the secret is the process's), and a download URL is kept only for the
 * second it was made in, under everything it is made of (object key, expiry second, name).
 */
@Injectable()
export class RunLinks {
  private readonly reviewUrls = new BoundedCache<string>(REVIEW_URLS_KEPT);
  private readonly downloadUrls = new BoundedCache<string>(DOWNLOAD_URLS_KEPT);

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(URL_SIGNER) private readonly signer: UrlSigner,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
  ) {}

  reviewSignature(runId: string): string {
    return this.signer.sign('review', runId, REVIEW_LINK_NO_EXPIRY);
  }

  reviewUrl(runId: string): string {
    let url = this.reviewUrls.get(runId);
    if (url === undefined) {
      url = `${this.config.publicBaseUrl}/review/${runId}?signature=${this.reviewSignature(runId)}`;
      this.reviewUrls.set(runId, url);
    }
    return url;
  }

  /** Constant-time check of a review link's signature. */
  isValidReviewSignature(runId: string, signature: unknown): boolean {
    if (typeof signature !== 'string') return false;
    // 'expired' is expected (the link carries no expiry); only a wrong signature fails.
    return this.signer.check('review', runId, REVIEW_LINK_NO_EXPIRY, signature) !== 'invalid';
  }

  upload(run: RunState): Promise<PresignedRequest> {
    return this.blobs.presign(run.source_key, 'PUT', {
      expiresAt: new Date(run.upload_expires_at ?? Date.now()),
      contentType: contentTypeOf(run.filename),
    });
  }

  /** A fresh download URL, valid for DOWNLOAD_URL_TTL_SECONDS and never past the retention date. */
  async download(run: RunState, now: Date): Promise<string | null> {
    // No link once the output is gone (the same rule the decider and the notifier apply to a finished webhook).
    if (!run.output_key || !run.file_retention_until || isOutputGone(run, now)) return null;
    const retention = Date.parse(run.file_retention_until);
    const expiresAt = new Date(Math.min(retention, now.getTime() + this.config.downloadUrlTtlSeconds * 1000));
    const downloadName = `${run.id}.${run.output_format}`;
    const key = `${Math.floor(now.getTime() / 1000)}\n${Math.floor(expiresAt.getTime() / 1000)}\n${run.output_key}\n${downloadName}`;
    let url = this.downloadUrls.get(key);
    if (url === undefined) {
      url = (await this.blobs.presign(run.output_key, 'GET', { expiresAt, downloadName })).url;
      this.downloadUrls.set(key, url);
    }
    return url;
  }
}

const CONTENT_TYPES: Record<string, string> = {
  csv: 'text/csv',
  tsv: 'text/tab-separated-values',
  txt: 'text/plain',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  png: 'image/png',
  webp: 'image/webp',
};
export const contentTypeOf = (filename: string | null): string =>
  CONTENT_TYPES[fileExtension(filename ?? '')] ?? 'application/octet-stream';
