import { constants } from 'node:fs';
import { chmod, copyFile, mkdir, open, opendir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
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
  try {
    const stores: BackupManifest['stores'] = [];
    for (const file of STORE_FILES) {
      const into = join(target, file);
      await snapshotSqlite(join(dataDir, file), into);
      stores.push({ file, bytes: (await stat(into)).size });
    }
    const blobs = await copyBlobs(join(dataDir, BLOBS), join(target, BLOBS), progress);
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
  for (const file of STORE_FILES)
    if (await exists(join(dataDir, file)))
      throw new BackupRefused(
        `${join(dataDir, file)} is there: a restore writes only into a DATA_DIR without stores. Stop the service and move ` +
          'the folder away first (keep it until the restored service is checked).',
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
      if (listed && listed.bytes !== bytes)
        throw new Error(
          `${join(backup, file)} has ${bytes} bytes where the backup's manifest says ${listed.bytes}: it is not the file backed up.`,
        );
      if (listed) checkSqlite(join(dataDir, file));
    }
    written.push(join(dataDir, BLOBS));
    const blobs = await copyBlobs(join(backup, BLOBS), join(dataDir, BLOBS), progress);
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
  if (manifest?.format !== 1 || !Array.isArray(manifest.keys_included) || !Array.isArray(manifest.stores))
    throw new BackupRefused(`${join(backup, BACKUP_MANIFEST)} is not a backup manifest this release reads (format 1).`);
  for (const file of STORE_FILES)
    if (!(await exists(join(backup, file)))) throw new BackupRefused(`${backup} lacks ${file}: the backup is incomplete.`);
  return manifest;
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
 * Copies a blob folder's files (not its temporary files), keeping their paths. A blob removed
 * while the copy goes (a run's files past their retention) is passed over.
 */
async function copyBlobs(from: string, to: string, progress?: CopyProgress): Promise<{ files: number; bytes: number }> {
  if (!(await exists(from))) return { files: 0, bytes: 0 };
  const files: string[] = [];
  for await (const file of filesUnder(from, true)) files.push(file);
  progress?.start(files.length, 'Blobs');
  let [copied, bytes] = [0, 0];
  try {
    for (const file of files) {
      const into = join(to, relative(from, file));
      await mkdir(join(into, '..'), { recursive: true, mode: DIR_MODE });
      const size = await copyDurably(file, into).catch((err: NodeJS.ErrnoException) => {
        if (err.code === 'ENOENT') return null;
        throw err;
      });
      if (size !== null) [copied, bytes] = [copied + 1, bytes + size];
      progress?.advance();
    }
  } finally {
    progress?.stop();
  }
  for await (const dir of foldersUnder(to)) await syncPath(dir);
  return { files: copied, bytes };
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
