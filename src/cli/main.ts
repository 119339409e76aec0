#!/usr/bin/env node
// `switchboard`: the admin command line. It reads configuration exactly like the service (the
// environment and `.env`), brings the database schema up to date before every command, and
// manages OAuth clients and reads the audit log. Exit codes: 0 success, 1 runtime error, 2 bad usage or invalid input.
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Command, CommanderError } from 'commander';
import type { Kysely, MigrationResultSet } from 'kysely';
import { ZodError } from 'zod';
import {
  DEVICE_CODE_GRANT,
  deleteClient,
  findClient,
  listClients,
  registerClient,
  rotateClientSecret,
} from '../auth/clients.js';
import { ConfigError, loadConfig, loadDotEnv } from '../config/config.js';
import { migrateToLatest, openDatabase } from '../db/database.js';
import type { OauthClientRecord } from '../db/repositories/oauth-clients.js';
import type { Schema } from '../db/tables.js';
import type { Scope } from '../domain/scopes.js';
import { registerImportExport } from './import-export.js';
import { registerAuditCommand } from './audit.js';
import { registerEventCommands } from './events.js';

export interface Io {
  out(text: string): void;
  err(text: string): void;
}

const processIo: Io = {
  out: (text) => process.stdout.write(`${text}\n`),
  err: (text) => process.stderr.write(`${text}\n`),
};

/** An expected failure: printed as `error: <line>` lines, without a stack trace. */
class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

const DEFAULT_GRANTS = ['authorization_code', 'refresh_token'];

interface CreateOptions {
  name: string;
  redirectUri?: string[];
  scopes: string;
  public?: boolean;
  firstParty?: boolean;
  grants?: string[];
  json?: boolean;
}

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

  const clients = program.command('clients').description('manage OAuth clients');

  clients
    .command('create')
    .description('register a new OAuth client and print its credentials')
    .requiredOption('--name <name>', 'name shown to people on the consent page')
    .option('--redirect-uri <uri>', 'allowed redirect URI (repeatable)', collect)
    .requiredOption('--scopes <scopes>', 'space-separated scopes the client may request')
    .option('--public', 'public client (native or browser app): no secret, PKCE only')
    .option('--first-party', 'first-party client: trusted, operated by this installation')
    .option('--grants <grants>', `grant types, comma-separated or repeated (default: ${DEFAULT_GRANTS.join(',')})`, collectList)
    .option('--json', 'print the result as JSON')
    .action((options: CreateOptions) =>
      withDatabase(async (db) => {
        const registration = {
          name: options.name,
          redirectUris: options.redirectUri ?? [],
          // Unchecked here: registerClient validates, and its ZodError names each bad scope.
          scopes: options.scopes.split(/\s+/).filter(Boolean) as Scope[],
          grantTypes: options.grants ?? DEFAULT_GRANTS,
          public: options.public === true,
          firstParty: options.firstParty === true,
        };
        const { client, secret } = await registerClient(db, registration).catch((error: unknown) => {
          throw error instanceof ZodError ? new CliError(describeIssues(error, registration), 2) : error;
        });
        if (options.json) {
          const { client_id, ...rest } = clientJson(client);
          io.out(JSON.stringify({ client_id, ...(secret === undefined ? {} : { client_secret: secret }), ...rest }, null, 2));
          return;
        }
        io.out(`created client "${client.name}"`);
        io.out(`  client_id:     ${client.id}`);
        if (secret === undefined) {
          io.out('  client_secret: none (public client: it authenticates with PKCE, not a secret)');
        } else {
          io.out(`  client_secret: ${secret}`);
          io.out('store the secret now: it is not shown again (`switchboard clients rotate-secret` replaces it)');
        }
      }),
    );

  clients
    .command('list')
    .description('list registered clients (never secrets)')
    .option('--json', 'print the clients as a JSON array')
    .action((options: { json?: boolean }) =>
      withDatabase(async (db) => {
        const all = await listClients(db);
        if (options.json) io.out(JSON.stringify(all.map(clientJson), null, 2));
        else if (all.length === 0) io.out('no clients registered');
        else io.out(table([['ID', 'NAME', 'TYPE', 'FIRST-PARTY', 'GRANTS', 'SCOPES'], ...all.map(clientRow)]));
      }),
    );

  clients
    .command('delete')
    .description('delete a client; tokens issued to it stop working')
    .argument('<id>', 'client id')
    .action((id: string) =>
      withDatabase(async (db) => {
        if (!(await deleteClient(db, id))) throw new CliError(`no client with id "${id}"`);
        io.out(`deleted client ${id}`);
      }),
    );

  clients
    .command('rotate-secret')
    .description('replace the secret of a confidential client and print the new one')
    .argument('<id>', 'client id')
    .option('--json', 'print the result as JSON')
    .action((id: string, options: { json?: boolean }) =>
      withDatabase(async (db) => {
        const secret = await rotateClientSecret(db, id);
        if (secret === undefined) {
          const client = await findClient(db, id);
          throw new CliError(client ? `client ${id} is a public client and has no secret` : `no client with id "${id}"`);
        }
        if (options.json) {
          io.out(JSON.stringify({ client_id: id, client_secret: secret }, null, 2));
          return;
        }
        io.out(`new secret for client ${id}: ${secret}`);
        io.out('the old secret no longer works; store the new one now: it is not shown again');
      }),
    );

  registerAuditCommand(program, { out: (text) => io.out(text), withDatabase: (action) => withDatabase((db) => action(db)) });
  registerEventCommands(program, {
    out: io.out,
    withDatabase: (action) => withDatabase((db) => action(db)),
    fail(message, exitCode) {
      throw new CliError(message, exitCode);
    },
    table,
  });

  program
    .command('register-commands')
    .description('register the slash commands with Discord (in DISCORD_GUILD_ID when set, else globally)')
    .action(async () => {
      loadDotEnv();
      const config = loadConfig();
      if (!config.bot.token) throw new CliError('DISCORD_TOKEN is not set', 2);
      const [{ registerCommands }, { COMMANDS }] = await Promise.all([import('../bot/register-commands.js'), import('../../commands/index.js')]);
      const result = await registerCommands(COMMANDS, { token: config.bot.token, discordApiBase: config.discord.apiBase, guildId: config.bot.guildId });
      io.out(`registered ${result.count} commands for application ${result.applicationId} (${result.scope})`);
    });

  program
    .command('bot')
    .description('run the Discord bot alone, against the service at SWITCHBOARD_API_URL')
    .option('--shards <shards>', 'auto, or a number of shards (needs a shared BOT_STORE_URL such as Redis or PostgreSQL)')
    .action(async (options: { shards?: string }) => {
      loadDotEnv();
      const config = loadConfig();
      const sharding = parseShards(options.shards, config.bot.storeUrl);
      const log = { info: (o: object, m?: string) => io.out(`${m ?? ''} ${JSON.stringify(o)}`), warn: (o: object, m?: string) => io.err(`warning: ${m ?? ''} ${JSON.stringify(o)}`), error: (o: object, m?: string) => io.err(`error: ${m ?? ''} ${JSON.stringify(o)}`) };
      const { runBot } = await import('../run-bot.js');
      const bot = await runBot(config, log, undefined, sharding);
      await new Promise<void>((resolve) => {
        process.once('SIGTERM', resolve);
        process.once('SIGINT', resolve);
      });
      await bot.stop();
    });

  registerImportExport(program, { io, progressStream: process.stderr, withDatabase, fail: (message, exitCode) => new CliError(message, exitCode) });

  return program;
}

/** `--shards auto|N`: several shards in one process share the link store, so it must be shared. */
function parseShards(value: string | undefined, storeUrl: string): { shards?: 'auto' | number[]; shardCount?: number } {
  if (value === undefined) return {};
  if (storeUrl.startsWith('sqlite:') && value !== '1') {
    throw new CliError('sharding needs a shared BOT_STORE_URL (postgres:// or redis://), not SQLite', 2);
  }
  if (value === 'auto') return { shards: 'auto' };
  const count = Number(value);
  if (!Number.isInteger(count) || count < 1 || count > 1000) throw new CliError('--shards must be auto or a whole number from 1 to 1000', 2);
  return { shards: Array.from({ length: count }, (_, i) => i), shardCount: count };
}

/** Loads the configuration, opens and migrates the database, runs `action`, always closes. */
async function withDatabase(action: (db: Kysely<Schema>, migrated: MigrationResultSet) => unknown): Promise<void> {
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

function clientJson(client: OauthClientRecord) {
  return {
    client_id: client.id,
    name: client.name,
    redirect_uris: client.redirectUris,
    grant_types: client.grantTypes,
    scopes: client.scopes,
    public: client.secretHash === null,
    first_party: client.firstParty,
  };
}

function clientRow(client: OauthClientRecord): string[] {
  return [
    client.id,
    client.name,
    client.secretHash === null ? 'public' : 'confidential',
    client.firstParty ? 'yes' : 'no',
    client.grantTypes.map((grant) => (grant === DEVICE_CODE_GRANT ? 'device_code' : grant)).join(','),
    client.scopes.join(' '),
  ];
}

function table(rows: string[][]): string {
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => row[column]?.length ?? 0))) ?? [];
  return rows.map((row) => row.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join('  ').trimEnd()).join('\n');
}

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

function collectList(value: string, previous: string[] = []): string[] {
  return [...previous, ...value.split(',').map((item) => item.trim()).filter(Boolean)];
}

/** One line per problem, e.g. `redirectUris.0: must be an absolute URL (got "x")`. */
function describeIssues(error: ZodError, input: object): string {
  return error.issues
    .map((issue) => {
      const got: unknown = issue.path.reduce<unknown>((value, key) => (value as Record<PropertyKey, unknown> | undefined)?.[key], input);
      return `${issue.path.join('.') || 'input'}: ${issue.message}${typeof got === 'string' ? ` (got ${JSON.stringify(got)})` : ''}`;
    })
    .join('\n');
}

/** A one-line description of an error; connection failures are often AggregateErrors without a message. */
function describe(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) return [...new Set(error.errors.map(describe))].join('; ');
  if (error instanceof Error) return error.message || (error as NodeJS.ErrnoException).code || error.name;
  return String(error);
}

function isEntryPoint(): boolean {
  try {
    return realpathSync(process.argv[1] ?? '') === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (isEntryPoint()) process.exitCode = await run(process.argv.slice(2));
