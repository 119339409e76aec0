// `switchboard import` and `switchboard export`: a self-hoster moving a community imports each
// member's PluralKit or Tupperbox file straight into the database, through the same planner and
// the same one-transaction apply as the API (no HTTP, no token), and exports a system as the API
// does. Registered on the program by src/cli/main.ts.
import { createReadStream, createWriteStream, statSync } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Command } from 'commander';
import type { Kysely, MigrationResultSet } from 'kysely';
import { importStore, loadExportData, newProxyTagId, systemForImport } from '../db/repositories/imports.js';
import { importSystem, type ImportProgress } from '../domain/import/import-system.js';
import { importFileHere } from '../domain/import/import-file.js';
import type { Schema } from '../db/tables.js';
import { buildExport, exportJson } from '../domain/import/export.js';
import { JsonStreamReader } from '../domain/import/json-stream.js';
import { readImportStream } from '../domain/import/read-bytes.js';
import { IMPORT_MODES, MAX_CLI_IMPORT_BYTES, type ImportMode, type ImportReport } from '../domain/import/model.js';
import { Problem } from '../domain/problems.js';
import { UserId } from '../domain/values.js';
import { printable } from './printable.js';

/** The client imported switches are recorded as made by (no OAuth client is involved). */
export const CLI_IMPORT_CLIENT = 'switchboard-cli-import';

export interface CliContext {
  io: { out(text: string): void; err(text: string): void };
  /** Where the progress bar is drawn (a terminal: stderr), or undefined for none. */
  progressStream?: { isTTY?: boolean; write(text: string): boolean };
  withDatabase(action: (db: Kysely<Schema>, migrated: MigrationResultSet) => unknown): Promise<void>;
  /** An expected failure, printed without a stack trace, with its exit code (2: bad input). */
  fail(message: string, exitCode?: number): Error;
}

interface ImportOptions {
  user: string;
  mode: string;
  dryRun?: boolean;
  history?: boolean;
  customFronts: string;
  friendsArePublic?: boolean;
  json?: boolean;
  progress?: boolean;
}

/** A one-line bar, redrawn in place: `alters  [##########----------]  1,000/2,000`. */
export function progressBar(write: (text: string) => void, width = 30): ImportProgress & { done(): void } {
  let shown = '';
  const draw: ImportProgress & { done(): void } = Object.assign(
    (step: string, done: number, total: number) => {
      const filled = total === 0 ? width : Math.round((done / total) * width);
      const line = `${step.padEnd(9)}[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${done.toLocaleString('en-US')}/${total.toLocaleString('en-US')}`;
      if (line !== shown) write(`\r${line}`);
      shown = line;
    },
    { done: () => shown !== '' && write('\n') },
  );
  return draw;
}

function userOption(value: string, fail: CliContext['fail']): string {
  if (!UserId.safeParse(value).success) throw fail(`--user must be a Discord user id (17 to 20 digits), not "${value}"`, 2);
  return value;
}

/** The report as lines for people. */
export function describeReport(report: ImportReport): string[] {
  const { alters, tags, switches, profileFields: fields } = report.counts;
  const lines = [
    `${report.dryRun ? 'preview of an import' : 'imported'} (${report.format}, mode ${report.mode}${report.history ? ', with front history' : ''})`,
    `  alters:   ${alters.created} created, ${alters.updated} updated, ${alters.unchanged} unchanged${alters.deleted ? `, ${alters.deleted} deleted` : ''}`,
    `  tags:     ${tags.created} created, ${tags.updated} updated, ${tags.unchanged} unchanged${tags.deleted ? `, ${tags.deleted} deleted` : ''}`,
    `  switches: ${switches.created} created, ${switches.unchanged} already there${switches.deleted ? `, ${switches.deleted} deleted` : ''}`,
  ];
  if (fields.created + fields.matched + fields.deleted > 0) {
    lines.push(`  profile fields: ${fields.created} created, ${fields.matched} matched by name${fields.deleted ? `, ${fields.deleted} deleted` : ''}`);
  }
  for (const rename of report.renames) lines.push(`renamed: ${JSON.stringify(rename.name)} (${rename.source} ${rename.id}) → ${rename.to}`);
  for (const skip of report.skipped) lines.push(`skipped: ${skip.id || '(no id)'}${skip.name ? ` ${JSON.stringify(skip.name)}` : ''}: ${skip.reason}`);
  for (const warning of report.warnings) lines.push(`warning: ${warning}`);
  for (const [kind, count] of Object.entries(report.notImported ?? {})) lines.push(`not imported: ${kind}: ${count}`);
  return lines;
}

export function registerImportExport(program: Command, context: CliContext): void {
  const { io, fail } = context;

  program
    .command('import')
    .description('import a PluralKit, Tupperbox or Simply Plural export file into a user\'s system (created if the user never signed in)')
    .requiredOption('--user <discord id>', 'the Discord user whose system receives the file')
    .option('--mode <mode>', `${IMPORT_MODES.join(', ')} (see the API reference)`, 'merge')
    .option('--dry-run', 'only print what would change')
    .option('--history', 'also import front history (PluralKit switches, Simply Plural front history)')
    .option('--custom-fronts <choice>', 'Simply Plural custom fronts: import (alters in a "Custom fronts" tag) or skip', 'import')
    .option('--friends-are-public', 'Simply Plural: make public what friends could see (by default everything is private)')
    .option('--json', 'print the report as JSON')
    .option('--progress', 'draw the progress bar even when standard error is not a terminal')
    .option('--no-progress', 'no progress bar (by default it is drawn on a terminal)')
    .argument('<file>', 'the export file (pk;export, tul!export or Simply Plural\'s export.json)')
    .action(async (file: string, options: ImportOptions) => {
      const userId = userOption(options.user, fail);
      if (!(IMPORT_MODES as readonly string[]).includes(options.mode)) throw fail(`--mode must be one of ${IMPORT_MODES.join(', ')}`, 2);
      if (options.customFronts !== 'import' && options.customFronts !== 'skip') throw fail('--custom-fronts must be import or skip', 2);
      let size: number;
      try {
        size = statSync(file).size;
      } catch {
        throw fail(`cannot read ${file}`, 2);
      }
      if (size > MAX_CLI_IMPORT_BYTES) throw fail(`${file} is larger than ${MAX_CLI_IMPORT_BYTES / 1024 / 1024} MiB, the most an import takes`, 2);
      let source;
      try {
        // Read as it comes off the disk, as the service reads a body: never the whole file at once.
        const reader = new JsonStreamReader();
        for await (const chunk of createReadStream(file, { highWaterMark: 64 * 1024 })) reader.push(chunk as Buffer);
        source = readImportStream(reader, { customFronts: options.customFronts, friendsArePublic: options.friendsArePublic === true });
      } catch (error) {
        throw error instanceof Problem ? fail(`${file}: ${error.message}`, 2) : error;
      }
      return context.withDatabase(async (db) => {
        const now = Date.now();
        const stream = context.progressStream;
        const wanted = options.progress ?? (stream?.isTTY === true && !options.json);
        const bar = wanted && stream ? progressBar((text) => stream.write(text)) : undefined;
        const dryRun = options.dryRun === true;
        const { systemId, created } = dryRun ? { systemId: await findSystemId(db, userId), created: false } : await systemForImport(db, userId, now);
        if (systemId === undefined) throw fail(`user ${userId} has no system yet; a dry run creates nothing (the import itself creates the system)`, 1);
        let outcome;
        try {
          outcome = await importSystem(importStore(db, systemId), {
            file: importFileHere(source, newProxyTagId),
            options: { mode: options.mode as ImportMode, dryRun, history: options.history === true },
            clientId: CLI_IMPORT_CLIENT,
            now,
            ...(bar ? { progress: bar } : {}),
          });
        } catch (error) {
          throw error instanceof Problem ? fail(error.message, 2) : error;
        } finally {
          bar?.done();
        }
        if (options.json) {
          io.out(JSON.stringify(outcome.report, null, 2));
          return;
        }
        if (created) io.out(`created a system for user ${userId}`);
        for (const line of describeReport(outcome.report)) io.out(printable(line));
      });
    });

  program
    .command('export')
    .description('write a user\'s system as a PluralKit v2 export (with our own fields under "switchboard")')
    .requiredOption('--user <discord id>', 'the Discord user whose system to export')
    .option('--output <file>', 'write to this file instead of standard output')
    .option('--profile-fields-in-description', 'append each alter\'s custom profile fields to its PluralKit description')
    .action((options: { user: string; output?: string; profileFieldsInDescription?: boolean }) => {
      const userId = userOption(options.user, fail);
      return context.withDatabase(async (db) => {
        const systemId = await findSystemId(db, userId);
        if (systemId === undefined) throw fail(`user ${userId} has no system`, 1);
        const { file, warnings } = buildExport(await loadExportData(db, systemId), { profileFieldsInDescription: options.profileFieldsInDescription === true });
        for (const warning of warnings) io.err(`warning: ${warning}`);
        if (options.output) {
          // Written piece by piece, as the API sends it: the file is never one string.
          await pipeline(Readable.from(exportJson(file), { objectMode: false }), createWriteStream(options.output));
          io.err(`wrote ${options.output} (${(file.members as unknown[]).length} alters, ${(file.groups as unknown[]).length} tags, ${(file.switches as unknown[]).length} switches)`);
        } else {
          io.out([...exportJson(file)].join(''));
        }
      });
    });
}

async function findSystemId(db: Kysely<Schema>, userId: string): Promise<number | undefined> {
  const owned = await db.selectFrom('systems').select('id').where('user_id', '=', userId).executeTakeFirst();
  return owned ? Number(owned.id) : undefined;
}
