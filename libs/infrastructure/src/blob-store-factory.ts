import { join } from 'node:path';
import { type BlobStore, LocalBlobStore, S3BlobStore, type UrlSigner, createS3Client } from '@app/blob-storage';
import type { AppConfig } from '@app/config';

/**
 * The blob store the configuration names. Kept apart from adapters.ts so that a worker
 * thread, which only reads and writes blobs, does not load Kafka, EventStoreDB and MongoDB
 * clients (memory and start-up time of every thread).
 */
export const openBlobStore = (c: AppConfig, signer: UrlSigner): BlobStore =>
  c.blobStore.kind === 's3'
    ? new S3BlobStore(
        createS3Client(c.blobStore),
        c.blobStore.bucket,
        c.blobStore.publicEndpoint ? createS3Client({ ...c.blobStore, endpoint: c.blobStore.publicEndpoint }) : undefined,
      )
    : new LocalBlobStore(join(c.dataDir, 'blobs'), signer, c.publicBaseUrl);
