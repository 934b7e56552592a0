import { Test } from '@nestjs/testing';
import { TerminusModule } from '@nestjs/terminus';
import { mkdtempSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BLOB_STORE, type BlobStore, LocalBlobStore, MemoryBlobStore, UrlSigner } from '@app/blob-storage';
import { APP_CONFIG, type AppConfig } from '@app/config';
import { EVENT_STORE } from '@app/event-store';
import { RUN_READ_MODEL } from '@app/read-model';
import { RunEventsServer } from '@app/run-event-transport';
import { Readiness, readinessAnswer } from './readiness';

/** Readiness over stores that answer, but for the blob store given; initialised as the application initialises it. */
async function readinessWith(blobs: (dataDir: string) => BlobStore, dataDir = mkdtempSync(join(tmpdir(), 'readiness-'))) {
  const moduleRef = await Test.createTestingModule({
    imports: [TerminusModule.forRoot({ logger: false })],
    providers: [
      Readiness,
      { provide: APP_CONFIG, useValue: { dataDir } as AppConfig },
      { provide: EVENT_STORE, useValue: { headPosition: () => Promise.resolve(0) } },
      { provide: RUN_READ_MODEL, useValue: { checkpoint: () => Promise.resolve(null) } },
      { provide: BLOB_STORE, useValue: blobs(dataDir) },
      { provide: RunEventsServer, useValue: { health: () => [] } },
    ],
  }).compile();
  await moduleRef.init();
  const readiness = moduleRef.get(Readiness);
  return {
    dataDir,
    blobStore: async () => {
      const { status, body } = await readinessAnswer(readiness);
      const details = (body as { details?: Record<string, { status: string; message?: string }> }).details ?? {};
      return { http: status, ...details.blob_store };
    },
  };
}

const local = (dataDir: string) => new LocalBlobStore(join(dataDir, 'blobs'), new UrlSigner(Buffer.alloc(32)), 'http://localhost:3000');

describe('readiness of the local blob store', () => {
  it('makes the folder as the process starts, so a fresh data directory is ready', async () => {
    const { dataDir, blobStore } = await readinessWith(local);
    expect(statSync(join(dataDir, 'blobs')).mode & 0o777).toBe(0o700);
    expect(await blobStore()).toEqual({ http: 200, status: 'up' });
  });

  it('is down when the folder was moved away, and up again once it is back', async () => {
    const { dataDir, blobStore } = await readinessWith(local);
    renameSync(join(dataDir, 'blobs'), join(dataDir, 'blobs.moved'));
    expect(await blobStore()).toEqual({ http: 503, status: 'down', message: `${join(dataDir, 'blobs')} is missing` });
    renameSync(join(dataDir, 'blobs.moved'), join(dataDir, 'blobs'));
    expect(await blobStore()).toEqual({ http: 200, status: 'up' });
  });

  it('is down when a file stands where the folder was', async () => {
    const { dataDir, blobStore } = await readinessWith(local);
    rmSync(join(dataDir, 'blobs'), { recursive: true });
    writeFileSync(join(dataDir, 'blobs'), '');
    expect(await blobStore()).toEqual({ http: 503, status: 'down', message: `${join(dataDir, 'blobs')} is not a directory` });
  });

  it('writes nothing when probed', async () => {
    const { dataDir, blobStore } = await readinessWith(local);
    const before = statSync(join(dataDir, 'blobs')).mtimeMs;
    await blobStore();
    await blobStore();
    expect(statSync(join(dataDir, 'blobs')).mtimeMs).toBe(before);
  });
});

describe('readiness of another blob store', () => {
  it('asks it for a key and makes no folder', async () => {
    const stat = jest.fn(() => Promise.resolve(null));
    const { dataDir, blobStore } = await readinessWith(() => Object.assign(new MemoryBlobStore(), { stat }));
    expect(await blobStore()).toEqual({ http: 200, status: 'up' });
    expect(stat).toHaveBeenCalledWith('readiness-probe');
    expect(() => statSync(join(dataDir, 'blobs'))).toThrow(/ENOENT/);
  });
});
