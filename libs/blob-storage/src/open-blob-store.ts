import { join } from 'node:path';
import type { BlobStore } from './blob-store.port';
import { LocalBlobStore } from './local/local-blob-store';
import type { UrlSigner } from './url-signer';
import type { AppConfig } from '@app/config';

/**
 * The blob store the configuration names. Its own file, importing only the files it needs
 * (not the lib's index), so that a worker thread (libs/cpu-work), which only reads and
 * writes blobs, loads neither the Kafka, EventStoreDB and MongoDB clients nor,
 * on local storage, the S3 SDK (memory and start-up time of every thread).
 */
export function openBlobStore(c: AppConfig, signer: UrlSigner): BlobStore {
  if (c.blobStore.kind !== 's3') return new LocalBlobStore(join(c.dataDir, 'blobs'), signer, c.publicBaseUrl);
  type S3Module = typeof import('./s3/s3-blob-store');
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only when S3 is configured (see above)
  const { S3BlobStore, createS3Client } = require('./s3/s3-blob-store') as S3Module;
  return new S3BlobStore(
    createS3Client(c.blobStore),
    c.blobStore.bucket,
    c.blobStore.publicEndpoint ? createS3Client({ ...c.blobStore, endpoint: c.blobStore.publicEndpoint }) : undefined,
  );
}
