export * from './blob-store.port';
export * from './blob-key';
export * from './url-signer';
export * from './local/local-blob-store';
export * from './s3/s3-blob-store';
export * from './s3/bucket-notification';
