import mongoose, { type Connection, Schema } from 'mongoose';
import type { DeadLetter, DeadLetterStore } from '../dead-letters.port';

type LetterBody = Omit<DeadLetter, 'replay_requested_at' | 'replayed_at' | 'replay_outcome'>;

/** The event is kept as JSON text: customer keys in its data may hold `.` or `$`. */
const letterSchema = new Schema(
  {
    _id: String,
    group: { type: String, required: true },
    dead_at: { type: String, required: true },
    doc: { type: String, required: true },
    replay_requested_at: { type: String, default: null },
    replayed_at: { type: String, default: null },
    replay_outcome: { type: String, default: null },
  },
  { versionKey: false, strict: 'throw' },
);
letterSchema.index({ dead_at: -1 });
letterSchema.index({ group: 1, replay_requested_at: 1 });

interface LetterRow {
  _id: string;
  doc: string;
  replay_requested_at: string | null;
  replayed_at: string | null;
  replay_outcome: string | null;
}

const toLetter = (r: LetterRow): DeadLetter => ({
  ...(JSON.parse(r.doc) as LetterBody),
  replay_requested_at: r.replay_requested_at ?? null,
  replayed_at: r.replayed_at ?? null,
  replay_outcome: r.replay_outcome ?? null,
});

/** Dead letters in the read model's MongoDB database (`dead_letters`), shared by every replica. */
export class MongoDeadLetterStore implements DeadLetterStore {
  private readonly letters;

  private constructor(private readonly connection: Connection) {
    this.letters = connection.model('DeadLetter', letterSchema, 'dead_letters');
  }

  static async connect(url: string, dbName?: string): Promise<MongoDeadLetterStore> {
    const connection = await mongoose
      .createConnection(url, { autoIndex: false, autoCreate: false, ...(dbName ? { dbName } : {}) })
      .asPromise();
    const store = new MongoDeadLetterStore(connection);
    await store.letters.createCollection().catch((err: { codeName?: string }) => {
      if (err.codeName !== 'NamespaceExists') throw err;
    });
    await store.letters.createIndexes();
    return store;
  }

  async record(letter: LetterBody): Promise<void> {
    await this.letters.updateOne(
      { _id: letter.id },
      { $set: { group: letter.group, dead_at: letter.dead_at, doc: JSON.stringify(letter) } },
      { upsert: true },
    );
  }

  async list(limit: number): Promise<DeadLetter[]> {
    return (await this.letters.find().sort({ dead_at: -1, _id: 1 }).limit(limit).lean<LetterRow[]>()).map(toLetter);
  }

  async get(id: string): Promise<DeadLetter | null> {
    const row = await this.letters.findById(id).lean<LetterRow>();
    return row ? toLetter(row) : null;
  }

  async requestReplay(id: string, at: string): Promise<boolean> {
    return (await this.letters.updateOne({ _id: id }, { $set: { replay_requested_at: at } })).matchedCount > 0;
  }

  async replaysDue(groups: string[], limit: number): Promise<DeadLetter[]> {
    const rows = await this.letters
      .find({
        group: { $in: groups },
        replay_requested_at: { $ne: null },
        $or: [{ replayed_at: null }, { $expr: { $lt: ['$replayed_at', '$replay_requested_at'] } }],
      })
      .sort({ replay_requested_at: 1 })
      .limit(limit)
      .lean<LetterRow[]>();
    return rows.map(toLetter);
  }

  async claimReplay(id: string): Promise<boolean> {
    const due = { $or: [{ replayed_at: null }, { $expr: { $lt: ['$replayed_at', '$replay_requested_at'] } }] };
    // An update pipeline: replayed_at takes the value of replay_requested_at in the same atomic write.
    const claimed = await this.letters.updateOne({ _id: id, replay_requested_at: { $ne: null }, ...due }, [
      { $set: { replayed_at: '$replay_requested_at', replay_outcome: 'replaying' } },
    ]);
    return claimed.modifiedCount > 0;
  }

  async markReplayed(id: string, outcome: string): Promise<void> {
    await this.letters.updateOne({ _id: id }, { $set: { replay_outcome: outcome } });
  }

  async close(): Promise<void> {
    await this.connection.close();
  }
}
