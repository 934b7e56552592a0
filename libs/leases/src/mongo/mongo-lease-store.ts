import mongoose, { type Connection, Schema } from 'mongoose';
import type { LeaseStore } from '../leases.port';

const leaseSchema = new Schema(
  { _id: String, holder: { type: String, required: true }, expires_at: { type: Number, required: true } },
  { versionKey: false, strict: 'throw' },
);

/** Leases in the read model's MongoDB database (`leases`), shared by every replica. */
export class MongoLeaseStore implements LeaseStore {
  private readonly leases;

  private constructor(
    private readonly connection: Connection,
    private readonly now: () => number,
  ) {
    this.leases = connection.model('Lease', leaseSchema, 'leases');
  }

  static async connect(url: string, dbName?: string, now: () => number = Date.now): Promise<MongoLeaseStore> {
    const connection = await mongoose
      .createConnection(url, { autoIndex: false, autoCreate: false, ...(dbName ? { dbName } : {}) })
      .asPromise();
    const store = new MongoLeaseStore(connection, now);
    await store.leases.createCollection().catch((err: { codeName?: string }) => {
      if (err.codeName !== 'NamespaceExists') throw err;
    });
    return store;
  }

  async acquire(name: string, holder: string, ttlMs: number): Promise<boolean> {
    const now = this.now();
    try {
      // Matches a lease that is ours or expired, or none (upsert). A lease someone else holds does
      // not match, so the upsert tries to insert its _id again: a duplicate key, i.e. not acquired.
      await this.leases.updateOne(
        { _id: name, $or: [{ holder }, { expires_at: { $lte: now } }] },
        { $set: { holder, expires_at: now + ttlMs } },
        { upsert: true },
      );
      return true;
    } catch (err) {
      if ((err as { code?: number }).code === 11000) return false;
      throw err;
    }
  }

  async release(name: string, holder: string): Promise<void> {
    await this.leases.deleteOne({ _id: name, holder });
  }

  async close(): Promise<void> {
    await this.connection.close();
  }
}
