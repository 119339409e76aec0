// `switchboard migrate`: brings the schema up to date and says which migrations ran (every other
// command migrates first too, silently).
import type { Command } from 'commander';
import { withDatabase, type Io } from './support.js';

export function registerMigrateCommand(program: Command, io: Io): void {
  program
    .command('migrate')
    .description('bring the database schema up to date (every command also does this first)')
    .action(() =>
      withDatabase((_db, migrated) => {
        const applied = (migrated.results ?? []).filter((result) => result.status === 'Success');
        if (applied.length === 0) io.out('database is up to date');
        for (const result of applied) io.out(`applied migration ${result.migrationName}`);
      }),
    );
}
