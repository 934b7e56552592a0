import type Database from 'better-sqlite3';

/**
 * Adds the columns a table gained after its first release, when a file from an older
 * version lacks them (SQLite has no ADD COLUMN IF NOT EXISTS). `columns`: name -> type.
 * Returns the columns it added (a caller may have to fill them).
 */
export function addMissingColumns(db: Database.Database, table: string, columns: Record<string, string>): string[] {
  const present = new Set(
    db
      .prepare<[string], { name: string }>('SELECT name FROM pragma_table_xinfo(?)')
      .all(table)
      .map((c) => c.name),
  );
  const missing = Object.keys(columns).filter((name) => !present.has(name));
  for (const name of missing) db.exec(`ALTER TABLE ${table} ADD COLUMN ${name} ${columns[name]}`);
  return missing;
}
