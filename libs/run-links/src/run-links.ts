import { Inject, Injectable } from '@nestjs/common';
import { BLOB_STORE, type BlobStore, type PresignedRequest } from '@app/blob-storage';
import type { UrlSigner } from '@app/blob-storage';
import { APP_CONFIG, type AppConfig } from '@app/config';
import type { RunState } from '@app/domain';
import { URL_SIGNER } from '@app/blob-storage';

/** Review links do not expire by themselves: the run's review_expires_at decides what the page allows. */
const REVIEW_LINK_NO_EXPIRY = 0;

/** Every URL the API hands out about a run, built from PUBLIC_BASE_URL and signed. */
@Injectable()
export class RunLinks {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(URL_SIGNER) private readonly signer: UrlSigner,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
  ) {}

  reviewSignature(runId: string): string {
    return this.signer.sign('review', runId, REVIEW_LINK_NO_EXPIRY);
  }

  reviewUrl(runId: string): string {
    return `${this.config.publicBaseUrl}/review/${runId}?signature=${this.reviewSignature(runId)}`;
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
    if (!run.output_key || !run.file_retention_until) return null;
    const retention = Date.parse(run.file_retention_until);
    if (retention <= now.getTime()) return null;
    const expiresAt = new Date(Math.min(retention, now.getTime() + this.config.downloadUrlTtlSeconds * 1000));
    return (await this.blobs.presign(run.output_key, 'GET', { expiresAt, downloadName: `${run.id}.${run.output_format}` })).url;
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
  CONTENT_TYPES[(filename ?? '').toLowerCase().split('.').pop() ?? ''] ?? 'application/octet-stream';
