export * from './blob-store.port';
export * from './blob-key';
export * from './url-signer';
export * from './local/local-blob-store';
export * from './memory/memory-blob-store';
// The S3 adapter is imported by path (@app/blob-storage/s3/s3-blob-store) where it is chosen,
// so that local storage never loads the AWS SDK.
export * from './s3/bucket-notification';
export * from './read-whole-blob';
