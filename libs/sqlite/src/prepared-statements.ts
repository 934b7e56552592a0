import type Database from 'better-sqlite3';

/** A statement for some SQL, prepared on first use and reused after. */
export type PreparedStatements = <P extends unknown[] = unknown[], R = unknown>(sql: string) => Database.Statement<P, R>;

/** Statements are prepared once and reused: preparing one costs more than the lookup it runs. */
export function preparedStatements(db: Database.Database): PreparedStatements {
  const prepared = new Map<string, Database.Statement>();
  return <P extends unknown[] = unknown[], R = unknown>(sql: string) => {
    let statement = prepared.get(sql);
    if (!statement) prepared.set(sql, (statement = db.prepare(sql)));
    return statement as Database.Statement<P, R>;
  };
}
