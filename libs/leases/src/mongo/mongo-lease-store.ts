import mongoose, { type Connection, Schema } from 'mongoose';
import type { LeaseRecord, LeaseStore } from '../leases.port';

const leaseSchema = new Schema(
  { _id: String, holder: { type: String, required: true }, expires_at: { type: Number, required: true }, note: { type: String } },
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

  async acquire(name: string, holder: string, ttlMs: number, note?: string): Promise<boolean> {
    const now = this.now();
    try {
      // Matches a lease that is ours or expired, or none (upsert). A lease someone else holds does
      // not match, so the upsert tries to insert its _id again: a duplicate key, i.e. not acquired.
      await this.leases.updateOne(
        { _id: name, $or: [{ holder }, { expires_at: { $lte: now } }] },
        { $set: { holder, expires_at: now + ttlMs, ...(note === undefined ? {} : { note }) } },
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

  async list(prefix: string, limit: number): Promise<LeaseRecord[]> {
    // Every name that starts with the prefix sorts between it and the prefix followed by the highest code unit: an index range.
    const docs = await this.leases
      .find({ _id: { $gte: prefix, $lt: `${prefix}\uffff` } })
      .sort({ expires_at: 1 })
      .limit(limit)
      .lean<{ _id: string; holder: string; expires_at: number; note?: string }[]>();
    return docs.map((d) => ({ name: d._id, holder: d.holder, expiresAt: d.expires_at, note: d.note ?? null }));
  }

  async close(): Promise<void> {
    await this.connection.close();
  }
}
