import { createHash } from 'node:crypto';
import { constants, createWriteStream } from 'node:fs';
import { chmod, copyFile, mkdir, open, opendir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import Database from 'better-sqlite3';
import { openSqlite } from '@app/sqlite';

/**
 * A copy of the embedded stores (DATA_DIR) taken while the service runs, and its way back
 * (docs/operations.md, "Backups"). The two SQLite files are copied with SQLite's own
 * `VACUUM INTO`, each a consistent snapshot taken in one read transaction, which never blocks
 * the service's writes; the blobs are plain files, each written once and renamed into place.
 */

/** Written last: a folder without it is not a finished backup, and is refused by a restore. */
export const BACKUP_MANIFEST = 'backup.json';

/**
 * The stores, in the order they are copied. The read model first: the consumers' checkpoints
 * live in events.sqlite, so a read model copied before the events is at most behind them, and
 * the restore's rebuild brings every run's document up to its events. Copied the other way,
 * a document could be ahead of the events copied, which no fold can take back.
 */
export const STORE_FILES = ['read-model.sqlite', 'events.sqlite'] as const;

/** The service's keys when they are not given in the environment (SECRETS_KEY, SIGNING_SECRET). */
export const KEY_FILES = ['secrets.key', 'signing.key'] as const;

/** The embedded blob store's folder in DATA_DIR, and its folder of temporary files (never copied: unfinished writes). */
const BLOBS = 'blobs';
/** The blobs' SHA-256 sums, in `sha256sum`'s format, beside the manifest. */
export const BLOB_SUMS = 'blobs.sha256';
const BLOB_TEMPORARIES = 'tmp';

/** As the service keeps DATA_DIR (docs/security.md): the owner's only. */
const DIR_MODE = 0o700;
const FILE_MODE = 0o600;

export interface BackupManifest {
  format: 1;
  created_at: string;
  /** The folder copied. */
  data_dir: string;
  stores: Array<{ file: string; bytes: number }>;
  blobs: { files: number; bytes: number };
  /** The key files copied (with --include-keys), and those in DATA_DIR that were not. */
  keys_included: string[];
  keys_left_out: string[];
}

export interface CopyProgress {
  start(total: number, label: string): void;
  advance(by?: number): void;
  stop(): void;
}

/** Thrown when a backup or restore cannot start; nothing was written (the CLI says it as a usage error). */
export class BackupRefused extends Error {}

/**
 * Copies DATA_DIR's stores, blobs and (with `includeKeys`) key files into `target`, which must
 * not exist or be empty. On a failure, what it wrote is removed and the error thrown.
 */
export async function backupDataDir(
  dataDir: string,
  target: string,
  { includeKeys, progress }: { includeKeys: boolean; progress?: CopyProgress },
): Promise<BackupManifest> {
  await requireEmptyFolder(target, 'The backup folder');
  const createdTarget = !(await exists(target));
  await mkdir(target, { recursive: true, mode: DIR_MODE });
  // An empty folder given keeps its own mode otherwise; one others could write to would let them swap the copies.
  await chmod(target, DIR_MODE);
  try {
    const stores: BackupManifest['stores'] = [];
    for (const file of STORE_FILES) {
      const into = join(target, file);
      await snapshotSqlite(join(dataDir, file), into);
      stores.push({ file, bytes: (await stat(into)).size });
    }
    const blobs = await backUpBlobs(join(dataDir, BLOBS), join(target, BLOBS), join(target, BLOB_SUMS), progress);
    const present = await presentKeyFiles(dataDir);
    const keys = includeKeys ? present : [];
    for (const file of keys) await copyDurably(join(dataDir, file), join(target, file));
    const manifest: BackupManifest = {
      format: 1,
      created_at: new Date().toISOString(),
      data_dir: dataDir,
      stores,
      blobs,
      keys_included: keys,
      keys_left_out: present.filter((f) => !keys.includes(f)),
    };
    await writeFile(join(target, BACKUP_MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`, { mode: FILE_MODE, flag: 'wx' });
    await syncPath(join(target, BACKUP_MANIFEST));
    await syncPath(target);
    return manifest;
  } catch (err) {
    await removeWritten(target, createdTarget);
    throw err;
  }
}

/**
 * Puts a backup's files into DATA_DIR, which must hold no stores and no blobs yet (the service
 * stopped, the old folder moved away). The caller rebuilds the read model after it. On a
 * failure, what it wrote is removed and the error thrown.
 */
export async function restoreDataDir(
  backup: string,
  dataDir: string,
  {
    secretsKeyGiven,
    progress,
    verify,
  }: {
    secretsKeyGiven: boolean;
    progress?: CopyProgress;
    /** Checks the restored folder before the restore counts as done; what it throws undoes the restore. */
    verify?: () => Promise<void>;
  },
): Promise<{ manifest: BackupManifest; blobs: { files: number; bytes: number }; keys: string[] }> {
  const manifest = await readManifest(backup);
  // A store's WAL or journal left behind (a crash, the store files deleted by hand) would be replayed by SQLite onto
  // the restored copy at its first opening: refused like the store itself.
  for (const file of STORE_FILES)
    for (const path of [file, `${file}-wal`, `${file}-shm`, `${file}-journal`].map((name) => join(dataDir, name)))
      if (await exists(path))
        throw new BackupRefused(
          `${path} is there: a restore writes only into a DATA_DIR without stores. Stop the service and move the folder ` +
            'away first (keep it until the restored service is checked).',
        );
  await requireEmptyFolder(join(dataDir, BLOBS), 'DATA_DIR/blobs');
  const keys = manifest.keys_included;
  // Without the key that sealed the stored webhook secrets and vendor keys, the service would make a new one, and
  // every one of them would be lost: refused before anything is written.
  if (!secretsKeyGiven && !keys.includes('secrets.key') && !(await exists(join(dataDir, 'secrets.key'))))
    throw new BackupRefused(
      'The backup holds no secrets.key and none is in DATA_DIR, and SECRETS_KEY is not set: the stored webhook secrets ' +
        'and AI vendor keys could not be read. Put the secrets.key kept with the backup into DATA_DIR, or set SECRETS_KEY.',
    );
  for (const file of keys)
    if (await exists(join(dataDir, file)))
      throw new BackupRefused(`${join(dataDir, file)} is there and the backup holds its own: keep one of them, then restore again.`);
  const written: string[] = [];
  try {
    await mkdir(dataDir, { recursive: true, mode: DIR_MODE });
    for (const file of [...STORE_FILES, ...keys]) {
      written.push(join(dataDir, file));
      const bytes = await copyDurably(join(backup, file), join(dataDir, file));
      const listed = manifest.stores.find((store) => store.file === file);
      if (listed === undefined) continue; // a key file
      if (listed.bytes !== bytes)
        throw new Error(
          `${join(backup, file)} has ${bytes} bytes where the backup's manifest says ${listed.bytes}: it is not the file backed up.`,
        );
      checkSqlite(join(dataDir, file));
    }
    written.push(join(dataDir, BLOBS));
    const blobs = await restoreBlobs(join(backup, BLOBS), join(dataDir, BLOBS), join(backup, BLOB_SUMS), progress);
    await syncPath(dataDir);
    await verify?.();
    return { manifest, blobs, keys };
  } catch (err) {
    for (const path of written) await rm(path, { recursive: true, force: true });
    throw err;
  }
}

async function readManifest(backup: string): Promise<BackupManifest> {
  const text = await readFile(join(backup, BACKUP_MANIFEST), 'utf8').catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT')
      throw new BackupRefused(`${backup} holds no ${BACKUP_MANIFEST}: it is not a finished backup made by data:backup.`);
    throw err;
  });
  let manifest: BackupManifest;
  try {
    manifest = JSON.parse(text) as BackupManifest;
  } catch {
    throw new BackupRefused(`${join(backup, BACKUP_MANIFEST)} is not JSON.`);
  }
  if (!isManifest(manifest))
    throw new BackupRefused(
      `${join(backup, BACKUP_MANIFEST)} is not a backup manifest this release reads (format 1: the stores ` +
        `${STORE_FILES.join(' and ')} with their sizes, and key files among ${KEY_FILES.join(', ')}).`,
    );
  for (const file of STORE_FILES)
    if (!(await exists(join(backup, file)))) throw new BackupRefused(`${backup} lacks ${file}: the backup is incomplete.`);
  return manifest;
}

/**
 * Whether a parsed manifest is one data:backup writes: the two stores in order with their sizes, and key files only of
 * the known names, once each. Its names are joined to paths, so nothing else may pass (`../..` would write elsewhere).
 */
function isManifest(m: unknown): m is BackupManifest {
  if (typeof m !== 'object' || m === null) return false;
  const { format, stores, keys_included: keys } = m as Partial<BackupManifest>;
  const knownKey = (k: unknown): boolean => (KEY_FILES as readonly unknown[]).includes(k);
  return (
    format === 1 &&
    Array.isArray(stores) &&
    stores.length === STORE_FILES.length &&
    stores.every((s, i) => s?.file === STORE_FILES[i] && Number.isSafeInteger(s.bytes) && s.bytes >= 0) &&
    Array.isArray(keys) &&
    keys.every(knownKey) &&
    new Set(keys).size === keys.length
  );
}

/** A consistent copy of a SQLite file the service may be writing: one read transaction, written owner-only, fsynced. */
async function snapshotSqlite(source: string, into: string): Promise<void> {
  // VACUUM INTO writes only into a missing or empty file: created empty first, with the owner's mode.
  await (await open(into, 'wx', FILE_MODE)).close();
  const db = openSqlite(source);
  try {
    db.prepare('VACUUM INTO ?').run(into);
  } finally {
    db.close();
  }
  await syncPath(into);
  checkSqlite(into);
}

/**
 * SQLite's own check of a copy's pages and records (`quick_check`: every page read once). A backup that would not open
 * is found when it is made, and a copy damaged on its way back (a bad disk, a truncated file) before a service runs on it.
 */
function checkSqlite(file: string): void {
  let findings: string[];
  try {
    const db = new Database(file, { readonly: true, fileMustExist: true });
    try {
      findings = (db.pragma('quick_check') as Array<{ quick_check: string }>).map((r) => r.quick_check);
    } finally {
      db.close();
    }
  } catch (err) {
    // A damaged header or page may fail the opening or the check itself ("file is not a database").
    findings = [(err as Error).message];
  }
  if (findings.join() !== 'ok') throw new Error(`${file} is damaged (SQLite's quick_check: ${findings.slice(0, 5).join('; ')}).`);
}

/**
 * Copies a blob folder's files (not its temporary files), keeping their paths, and writes each one's SHA-256 into
 * `sumsFile` as `sha256sum` writes them (`cd blobs && sha256sum -c ../blobs.sha256` checks a backup by hand). A blob
 * removed while the copy goes (a run's files past their retention) is passed over.
 */
async function backUpBlobs(from: string, to: string, sumsFile: string, progress?: CopyProgress): Promise<BlobCount> {
  const sums = await open(sumsFile, 'wx', FILE_MODE);
  const count: BlobCount = { files: 0, bytes: 0 };
  try {
    const files = await blobFiles(from);
    progress?.start(files.length, 'Blobs');
    try {
      for (const file of files) {
        const copied = await copyHashed(file, join(to, relative(from, file))).catch((err: NodeJS.ErrnoException) => {
          if (err.code === 'ENOENT') return null;
          throw err;
        });
        if (copied !== null) {
          await sums.write(`${copied.sha256}  ${relative(from, file)}\n`);
          [count.files, count.bytes] = [count.files + 1, count.bytes + copied.bytes];
        }
        progress?.advance();
      }
    } finally {
      progress?.stop();
    }
    await sums.sync();
  } finally {
    await sums.close();
  }
  for await (const dir of foldersUnder(to)) await syncPath(dir);
  return count;
}

/**
 * Copies a backup's blobs back, each checked against its SHA-256 in `sumsFile` as it is copied: a blob damaged since,
 * one missing, or one the backup did not list is refused.
 */
async function restoreBlobs(from: string, to: string, sumsFile: string, progress?: CopyProgress): Promise<BlobCount> {
  const sums = await readSums(sumsFile);
  const count: BlobCount = { files: 0, bytes: 0 };
  const files = await blobFiles(from);
  progress?.start(files.length, 'Blobs');
  try {
    for (const file of files) {
      const name = relative(from, file);
      const listed = sums.get(name);
      if (listed === undefined) throw new Error(`${file} is not in ${sumsFile}: it was not backed up with the others.`);
      const copied = await copyHashed(file, join(to, name));
      if (copied.sha256 !== listed) throw new Error(`${file} is damaged: its SHA-256 is not the one ${sumsFile} lists.`);
      sums.delete(name);
      [count.files, count.bytes] = [count.files + 1, count.bytes + copied.bytes];
      progress?.advance();
    }
  } finally {
    progress?.stop();
  }
  if (sums.size > 0) throw new Error(`${sums.size} blobs ${sumsFile} lists are missing from the backup, ${[...sums.keys()][0]} first.`);
  for await (const dir of foldersUnder(to)) await syncPath(dir);
  return count;
}

interface BlobCount {
  files: number;
  bytes: number;
}

/** `sha256sum`'s lines: the sum, two spaces, the file's path under blobs/ (a blob key: no space, no line break). */
async function readSums(sumsFile: string): Promise<Map<string, string>> {
  const text = await readFile(sumsFile, 'utf8').catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') throw new BackupRefused(`${sumsFile} is missing: the backup's blobs cannot be checked.`);
    throw err;
  });
  const sums = new Map<string, string>();
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const match = /^([0-9a-f]{64}) {2}(\S+)$/.exec(line);
    if (!match) throw new BackupRefused(`${sumsFile} has a line that is not a SHA-256 and a path: ${JSON.stringify(line.slice(0, 120))}.`);
    sums.set(match[2], match[1]);
  }
  return sums;
}

/** The files of a blob folder (none when it is missing), but for its temporary files. */
async function blobFiles(dir: string): Promise<string[]> {
  const files: string[] = [];
  if (await exists(dir)) for await (const file of filesUnder(dir, true)) files.push(file);
  return files;
}

/** Copies one file (never over another) through SHA-256, owner-only and fsynced, in folders made owner-only. */
async function copyHashed(from: string, to: string): Promise<{ bytes: number; sha256: string }> {
  const hash = createHash('sha256');
  let bytes = 0;
  await mkdir(dirname(to), { recursive: true, mode: DIR_MODE });
  // Opened before the copy is created, so a blob removed meanwhile leaves no empty copy behind.
  const source = await open(from, 'r');
  await pipeline(
    source.createReadStream(),
    new Transform({
      transform(chunk: Buffer, _encoding, done) {
        hash.update(chunk);
        bytes += chunk.length;
        done(null, chunk);
      },
    }),
    createWriteStream(to, { flags: 'wx', mode: FILE_MODE }),
  );
  await syncPath(to);
  return { bytes, sha256: hash.digest('hex') };
}

async function* filesUnder(dir: string, top: boolean): AsyncGenerator<string> {
  for await (const entry of await opendir(dir)) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!(top && entry.name === BLOB_TEMPORARIES)) yield* filesUnder(path, false);
    } else if (entry.isFile()) yield path;
  }
}

async function* foldersUnder(dir: string): AsyncGenerator<string> {
  if (!(await exists(dir))) return;
  yield dir;
  for await (const entry of await opendir(dir)) if (entry.isDirectory()) yield* foldersUnder(join(dir, entry.name));
}

/** Copies one file (never over another), owner-only and fsynced; answers its size. */
async function copyDurably(from: string, to: string): Promise<number> {
  await copyFile(from, to, constants.COPYFILE_EXCL | constants.COPYFILE_FICLONE);
  await chmod(to, FILE_MODE);
  await syncPath(to);
  return (await stat(to)).size;
}

/** fsync of a file or a folder (a folder's, so that the names in it are on the disk too). */
async function syncPath(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

async function presentKeyFiles(dataDir: string): Promise<string[]> {
  const present: string[] = [];
  for (const file of KEY_FILES) if (await exists(join(dataDir, file))) present.push(file);
  return present;
}

async function requireEmptyFolder(dir: string, what: string): Promise<void> {
  const info = await stat(dir).catch(() => null);
  if (info === null) return;
  if (!info.isDirectory()) throw new BackupRefused(`${what} ${dir} is a file, not a folder.`);
  if ((await readdir(dir)).length > 0) throw new BackupRefused(`${what} ${dir} is not empty: nothing is written over.`);
}

/** After a failed backup: the folder it made, or what it put in a folder that was empty. */
async function removeWritten(target: string, createdTarget: boolean): Promise<void> {
  if (createdTarget) return void (await rm(target, { recursive: true, force: true }));
  for (const name of await readdir(target)) await rm(join(target, name), { recursive: true, force: true });
}

const exists = async (path: string): Promise<boolean> => (await stat(path).catch(() => null)) !== null;
