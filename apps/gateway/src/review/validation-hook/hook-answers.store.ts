import { Readable } from 'node:stream';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { BLOB_STORE, readWholeBlob, type BlobStore } from '@app/blob-storage';
import { hookAnswersKeyOf, type RunState } from '@app/domain';
import type { CustomerFinding, Findings } from './hook-answer';

/** Batch answers kept in this instance's memory, in front of the stored ones. */
const IN_MEMORY = 2000;
/** Batch answers kept in a run's blob: the oldest go first past either bound (a dropped one only costs a call). */
const STORED_BATCHES = 5000;
const STORED_BYTES = 8_000_000;

/** One finding as stored: row, field, message, corrected value. */
type StoredFinding = [number, string, string, string | null];
interface StoredAnswers {
  version: 1;
  /** Oldest first: [batch key, findings]. */
  answers: [string, StoredFinding[]][];
}

const toStored = (findings: Findings): StoredFinding[] =>
  [...findings].flatMap(([row, cells]) => [...cells].map(([field, f]): StoredFinding => [row, field, f.message, f.corrected_value]));

function fromStored(items: StoredFinding[]): Findings {
  const findings: Findings = new Map();
  for (const [row, field, message, corrected_value] of items) {
    const cells = findings.get(row) ?? new Map<string, CustomerFinding>();
    cells.set(field, { message, corrected_value });
    findings.set(row, cells);
  }
  return findings;
}

const isStoredFinding = (v: unknown): v is StoredFinding =>
  Array.isArray(v) &&
  v.length === 4 &&
  typeof v[0] === 'number' &&
  typeof v[1] === 'string' &&
  typeof v[2] === 'string' &&
  (typeof v[3] === 'string' || v[3] === null);

/** A run's stored answers, oldest first; an unreadable blob is as good as none (its answers are asked again). */
function parseStored(bytes: Buffer | null): Map<string, StoredFinding[]> {
  const answers = new Map<string, StoredFinding[]>();
  if (!bytes) return answers;
  let parsed: Partial<StoredAnswers>;
  try {
    parsed = JSON.parse(bytes.toString('utf8')) as Partial<StoredAnswers>;
  } catch {
    return answers;
  }
  if (parsed.version !== 1 || !Array.isArray(parsed.answers)) return answers;
  for (const entry of parsed.answers) {
    if (Array.isArray(entry) && typeof entry[0] === 'string' && Array.isArray(entry[1]) && entry[1].every(isStoredFinding))
      answers.set(entry[0], entry[1]);
  }
  return answers;
}

/** The stored form, the oldest answers dropped until it fits its bounds. */
function serialize(answers: Map<string, StoredFinding[]>): Buffer {
  const entries = [...answers].slice(-STORED_BATCHES);
  let text = JSON.stringify({ version: 1, answers: entries } satisfies StoredAnswers);
  while (Buffer.byteLength(text) > STORED_BYTES && entries.length > 1) {
    entries.splice(0, Math.ceil(entries.length / 4));
    text = JSON.stringify({ version: 1, answers: entries } satisfies StoredAnswers);
  }
  return Buffer.from(text, 'utf8');
}

/**
 * The customer's answers per batch (by batch key: a hash of the run, the URL and the batch's
 * rows and values), kept where every gateway instance reads them: one blob per run beside its
 * rows (`<rows_key>.hook-answers`, among the run's files, so the retention sweep deletes it with
 * them), with a memory cache in front. A restart or another instance reuses them instead of
 * asking the customer again. Two instances writing at once may drop each other's newest
 * answers (the blob is read, merged and replaced whole): that only costs those batches a call.
 * Storage failing never fails the checks: the answers then live in memory alone.
 */
@Injectable()
export class HookAnswers {
  private readonly logger = new Logger(HookAnswers.name);
  private readonly memory = new Map<string, Findings>();
  /** Writes per blob, one after the other: this instance never loses its own answers to itself. */
  private readonly writes = new Map<string, Promise<void>>();

  constructor(@Inject(BLOB_STORE) private readonly blobs: BlobStore) {}

  /** The answers known for these batches: from memory, else from the run's stored answers (read once per call). */
  async known(run: RunState, keys: readonly string[]): Promise<Map<string, Findings>> {
    const found = new Map<string, Findings>();
    const missing = keys.filter((key) => {
      const answer = this.memory.get(`${run.id}:${key}`);
      if (answer) found.set(key, answer);
      return !answer;
    });
    if (missing.length === 0) return found;
    let stored: Map<string, StoredFinding[]>;
    try {
      stored = parseStored(await readWholeBlob(this.blobs, hookAnswersKeyOf(run.rows_key)));
    } catch (err) {
      this.logger.warn(`Run ${run.id}: the kept answers of the customer's checks could not be read: ${(err as Error).message}`);
      return found;
    }
    for (const key of missing) {
      const items = stored.get(key);
      if (!items) continue;
      const answer = fromStored(items);
      this.remember(run, key, answer);
      found.set(key, answer);
    }
    return found;
  }

  /** Keeps new answers: in memory at once, and in the run's blob (merged with what is there). Never throws. */
  keep(run: RunState, answers: ReadonlyMap<string, Findings>): Promise<void> {
    if (answers.size === 0) return Promise.resolve();
    for (const [key, answer] of answers) this.remember(run, key, answer);
    const blobKey = hookAnswersKeyOf(run.rows_key);
    const write = (this.writes.get(blobKey) ?? Promise.resolve())
      .then(async () => {
        const stored = parseStored(await readWholeBlob(this.blobs, blobKey));
        for (const [key, answer] of answers) {
          // Newest last: the trim drops the answers asked about longest ago.
          stored.delete(key);
          stored.set(key, toStored(answer));
        }
        await this.blobs.put(blobKey, Readable.from([serialize(stored)]), { contentType: 'application/json' });
      })
      .catch((err: Error) => {
        this.logger.warn(`Run ${run.id}: the answers of the customer's checks could not be kept: ${err.message}`);
      })
      .finally(() => {
        if (this.writes.get(blobKey) === write) this.writes.delete(blobKey);
      });
    this.writes.set(blobKey, write);
    return write;
  }

  private remember(run: RunState, key: string, answer: Findings) {
    const at = `${run.id}:${key}`;
    this.memory.delete(at);
    this.memory.set(at, answer);
    if (this.memory.size > IN_MEMORY) this.memory.delete(this.memory.keys().next().value as string);
  }
}
