#!/usr/bin/env node
// `switchboard`: the admin command line. It reads configuration exactly like the service (the
// environment and `.env`), brings the database schema up to date before every command, and
// manages OAuth clients and reads the audit log. Exit codes: 0 success, 1 runtime error, 2 bad usage or invalid input.
// This module assembles the program; each group of subcommands lives in its own module beside it.
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Command, CommanderError } from 'commander';
import { ConfigError } from '../config/config.js';
import { registerAuditCommand } from './audit.js';
import { registerBotCommands } from './bot.js';
import { registerClientCommands } from './clients.js';
import { registerEventCommands } from './events.js';
import { registerImportExport } from './import-export.js';
import { registerMigrateCommand } from './migrate.js';
import { CliError, describe, processIo, table, withDatabase, type Io } from './support.js';

export type { Io } from './support.js';

/** Runs the CLI with `argv` (arguments after the program name) and returns the exit code. */
export async function run(argv: string[], io: Io = processIo): Promise<number> {
  const program = buildProgram(io);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (error) {
    // Commander has already printed its message (or the help) through configureOutput.
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2;
    if (error instanceof ConfigError) {
      io.err(error.message);
      return 1;
    }
    if (error instanceof CliError) {
      for (const line of error.message.split('\n')) io.err(`error: ${line}`);
      return error.exitCode;
    }
    io.err(`error: ${describe(error)}`);
    return 1;
  }
}

function buildProgram(io: Io): Command {
  const program = new Command('switchboard')
    .description('Administer a switchboard installation: database migrations and OAuth clients.')
    .addHelpText('after', '\nConfiguration is read from the environment and .env, like the service (DATABASE_URL, DATA_DIR, ...).')
    // Before any .command(): subcommands copy these settings when they are created.
    .exitOverride()
    .configureOutput({ writeOut: (text) => io.out(text.trimEnd()), writeErr: (text) => io.err(text.trimEnd()) })
    .showHelpAfterError('(add --help for usage)');

  // In this order: `--help` lists the subcommands as they are registered.
  registerMigrateCommand(program, io);
  registerClientCommands(program, io);
  registerAuditCommand(program, { out: (text) => io.out(text), withDatabase: (action) => withDatabase((db) => action(db)) });
  registerEventCommands(program, {
    out: io.out,
    withDatabase: (action) => withDatabase((db) => action(db)),
    fail(message, exitCode) {
      throw new CliError(message, exitCode);
    },
    table,
  });
  registerBotCommands(program, io);
  registerImportExport(program, { io, progressStream: process.stderr, withDatabase, fail: (message, exitCode) => new CliError(message, exitCode) });

  return program;
}

function isEntryPoint(): boolean {
  try {
    return realpathSync(process.argv[1] ?? '') === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (isEntryPoint()) process.exitCode = await run(process.argv.slice(2));
