// `switchboard clients …`: register, list, delete OAuth clients and rotate their secrets. Secrets
// are printed once; only their hashes are stored (src/auth/clients.ts).
import type { Command } from 'commander';
import { ZodError } from 'zod';
import { DEVICE_CODE_GRANT, deleteClient, findClient, listClients, registerClient, rotateClientSecret } from '../auth/clients.js';
import type { OauthClientRecord } from '../db/repositories/oauth-clients.js';
import type { Scope } from '../domain/scopes.js';
import { printable } from './printable.js';
import { CliError, table, withDatabase, type Io } from './support.js';

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

export function registerClientCommands(program: Command, io: Io): void {
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
        io.out(`created client "${printable(client.name)}"`);
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

