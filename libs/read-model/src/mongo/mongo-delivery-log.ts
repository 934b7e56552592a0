import mongoose, { type Connection, Schema } from 'mongoose';
import type { DeliveryAttemptEntry, DeliveryLog, DeliveryLogQuery } from '../delivery-log.port';

const attemptSchema = new Schema(
  {
    _id: String,
    organization_id: { type: String, required: true },
    run_id: { type: String, required: true },
    delivery_id: { type: String, required: true },
    event: { type: String, required: true },
    url: { type: String, default: null },
    attempt: { type: Number, required: true },
    outcome: { type: String, required: true },
    status_code: { type: Number, default: null },
    error: { type: String, default: null },
    duration_ms: { type: Number, default: null },
    response_excerpt: { type: String, default: null },
    sent_at: { type: String, required: true },
  },
  { versionKey: false, strict: 'throw' },
);
attemptSchema.index({ organization_id: 1, sent_at: -1, _id: -1 });
attemptSchema.index({ organization_id: 1, event: 1, outcome: 1, sent_at: -1, _id: -1 });

/** The delivery log in the read model's MongoDB database (collection `webhook_delivery_attempts`, a connection of its own). */
export class MongoDeliveryLog implements DeliveryLog {
  private readonly attempts;

  private constructor(private readonly connection: Connection) {
    this.attempts = connection.model('WebhookDeliveryAttempt', attemptSchema, 'webhook_delivery_attempts');
  }

  /** Connects and makes sure the collection and its indexes exist (idempotent). */
  static async connect(url: string, dbName?: string): Promise<MongoDeliveryLog> {
    const connection = await mongoose
      .createConnection(url, { autoIndex: false, autoCreate: false, ...(dbName ? { dbName } : {}) })
      .asPromise();
    const log = new MongoDeliveryLog(connection);
    await log.attempts.createCollection().catch((err: { codeName?: string }) => {
      if (err.codeName !== 'NamespaceExists') throw err;
    });
    await log.attempts.createIndexes();
    return log;
  }

  async record(entry: DeliveryAttemptEntry): Promise<void> {
    const { id, ...rest } = entry;
    // Insert once: an attempt already there (a replay) is left as it is.
    await this.attempts.updateOne({ _id: id }, { $setOnInsert: rest }, { upsert: true });
  }

  async list(organizationId: string, query: DeliveryLogQuery): Promise<{ items: DeliveryAttemptEntry[]; total: number }> {
    const filter: Record<string, string> = { organization_id: organizationId };
    if (query.event) filter.event = query.event;
    if (query.outcome) filter.outcome = query.outcome;
    const [rows, total] = await Promise.all([
      this.attempts.find(filter).sort({ sent_at: -1, _id: -1 }).skip(query.offset).limit(query.limit).lean(),
      this.attempts.countDocuments(filter),
    ]);
    const items = rows.map(({ _id, ...rest }) => ({ id: _id as string, ...rest }) as unknown as DeliveryAttemptEntry);
    return { items, total };
  }

  async close(): Promise<void> {
    await this.connection.close();
  }
}
