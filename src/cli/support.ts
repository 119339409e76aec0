// What every `switchboard` subcommand shares: where it prints, how an expected failure is told
// (`error: …` without a stack trace), the database opened and migrated around each command, and
// plain-text tables.
import type { Kysely, MigrationResultSet } from 'kysely';
import { loadConfig, loadDotEnv } from '../config/config.js';
import { migrateToLatest, openDatabase } from '../db/database.js';
import type { Schema } from '../db/tables.js';
import { printable } from './printable.js';

export interface Io {
  out(text: string): void;
  err(text: string): void;
}

export const processIo: Io = {
  out: (text) => process.stdout.write(`${text}\n`),
  err: (text) => process.stderr.write(`${text}\n`),
};

/** An expected failure: printed as `error: <line>` lines, without a stack trace. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

/** Loads the configuration, opens and migrates the database, runs `action`, always closes. */
export async function withDatabase(action: (db: Kysely<Schema>, migrated: MigrationResultSet) => unknown): Promise<void> {
  loadDotEnv();
  const config = loadConfig();
  const database = openDatabase(config.databaseUrl);
  try {
    let migrated: MigrationResultSet;
    try {
      migrated = await migrateToLatest(database.db);
    } catch (error) {
      // Never echo the URL: it may hold a password.
      throw new CliError(`cannot open the ${database.dialect} database named by DATABASE_URL: ${describe(error)}`);
    }
    await action(database.db, migrated);
  } finally {
    await database.close();
  }
}

/** A plain-text table; every cell is printed through `printable` (it may hold what a client wrote). */
export function table(rows: string[][]): string {
  rows = rows.map((row) => row.map(printable));
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => row[column]?.length ?? 0))) ?? [];
  return rows.map((row) => row.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join('  ').trimEnd()).join('\n');
}

/** A one-line description of an error; connection failures are often AggregateErrors without a message. */
export function describe(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) return [...new Set(error.errors.map(describe))].join('; ');
  if (error instanceof Error) return error.message || (error as NodeJS.ErrnoException).code || error.name;
  return String(error);
}
