import { blobStoreContract } from '../testing/blob-store.contract';
import { MemoryBlobStore } from './memory-blob-store';

blobStoreContract('memory', async () => new MemoryBlobStore(), { urls: false });
