import { createdObjectKeys } from './bucket-notification';

// Shaped like MinIO's Kafka notification (EventName/Key at the top, S3 records inside).
const minio = (eventName: string, key: string) =>
  JSON.stringify({
    EventName: eventName,
    Key: `uploads/${key}`,
    Records: [{ eventVersion: '2.0', eventSource: 'minio:s3', eventName, s3: { bucket: { name: 'uploads' }, object: { key, size: 42 } } }],
  });

describe('createdObjectKeys', () => {
  it('gives the decoded key of an object-created notification (MinIO and AWS names)', () => {
    expect(createdObjectKeys(minio('s3:ObjectCreated:Put', 'runs%2F0b4e3f4a-1111-4222-8333-944455556666%2Fsource'))).toEqual([
      'runs/0b4e3f4a-1111-4222-8333-944455556666/source',
    ]);
    expect(createdObjectKeys(minio('ObjectCreated:CompleteMultipartUpload', 'a+b%2Bc'))).toEqual(['a b+c']);
  });

  it('ignores removals, test events, malformed escapes and garbage', () => {
    expect(createdObjectKeys(minio('s3:ObjectRemoved:Delete', 'runs/x/source'))).toEqual([]);
    expect(createdObjectKeys(JSON.stringify({ Event: 's3:TestEvent' }))).toEqual([]);
    expect(createdObjectKeys(minio('s3:ObjectCreated:Put', '%E0%A4%A'))).toEqual([]);
    expect(createdObjectKeys('not json')).toEqual([]);
    expect(createdObjectKeys('null')).toEqual([]);
  });
});
