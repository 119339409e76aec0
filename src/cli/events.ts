// `switchboard events …`: the operator's view of webhook endpoints (any client's): register one for
// a client, list, delete, rotate a secret, read the delivery log, replay, and the queue's counts.
// The same rules as the API (src/events/endpoints.ts); secrets are printed once and stored sealed.
import type { Command } from 'commander';
import type { Kysely } from 'kysely';
import { loadConfig } from '../config/config.js';
import { loadSecrets } from '../config/secrets.js';
import { findClient } from '../db/repositories/oauth-clients.js';
import { findDelivery, listDeliveries, replayDeliveries } from '../db/repositories/events/deliveries.js';
import { deleteEndpoint, findEndpoint, listEndpoints } from '../db/repositories/events/endpoints.js';
import { deliveryCounts } from '../db/repositories/events/queue.js';
import type { Schema } from '../db/tables.js';
import { CreateEndpointBody } from '../domain/events.js';
import { Problem } from '../domain/problems.js';
import { createEndpoint, parseDeliveryId, rotateEndpointSecret, toDeliveryView, toEndpointView } from '../events/endpoints.js';
import { createStorageCrypto } from '../security/crypto.js';
import { printable } from './printable.js';
import { readOlderGrants } from '../events/grants.js';

export interface EventCommandHelpers {
  out(text: string): void;
  withDatabase(action: (db: Kysely<Schema>) => unknown): Promise<void>;
  /** An expected failure: printed as `error: …`, exit code 1 (2 for bad usage). */
  fail(message: string, exitCode?: number): never;
  table(rows: string[][]): string;
}

function crypto() {
  return createStorageCrypto(loadSecrets(loadConfig()).dataEncryptionKey);
}

export function registerEventCommands(program: Command, helpers: EventCommandHelpers): void {
  const { out, withDatabase, table } = helpers;
  const events = program.command('events').description('webhook endpoints of OAuth clients and their deliveries');
  const guard = async (work: () => Promise<void>) => {
    try {
      await work();
    } catch (error) {
      if (error instanceof Problem) helpers.fail(error.message, 2);
      throw error;
    }
  };

  events
    .command('create')
    .description('register a webhook endpoint for a client and print its signing secret (once)')
    .requiredOption('--client <id>', 'the OAuth client that receives the events')
    .requiredOption('--url <url>', 'https:// URL the events are POSTed to')
    .requiredOption('--types <types>', 'comma-separated event types (e.g. alter.created,system.updated)')
    .option('--json', 'print the result as JSON')
    .action((options: { client: string; url: string; types: string; json?: boolean }) =>
      withDatabase((db) =>
        guard(async () => {
          if (!(await findClient(db, options.client))) helpers.fail(`no client with id "${options.client}"`);
          const parsed = CreateEndpointBody.safeParse({ url: options.url, eventTypes: options.types.split(',').map((type) => type.trim()).filter(Boolean) });
          if (!parsed.success) helpers.fail(parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('\n'), 2);
          const { endpoint, secret } = await createEndpoint(db, crypto(), options.client, parsed.data, loadConfig().events.allowPrivateAddresses);
          if (options.json) {
            out(JSON.stringify({ ...toEndpointView(endpoint), clientId: endpoint.clientId, secret }, null, 2));
            return;
          }
          out(`created endpoint ${endpoint.id} for client ${printable(endpoint.clientId)}`);
          out(`  url:    ${printable(endpoint.url)}`);
          out(`  types:  ${endpoint.eventTypes.join(', ')}`);
          out(`  secret: ${secret}`);
          out('store the secret now: it is not shown again (`switchboard events rotate-secret` replaces it)');
        }),
      ),
    );

  events
    .command('list')
    .description('list endpoints (never secrets)')
    .option('--client <id>', 'only this client’s')
    .option('--json', 'print as JSON')
    .action((options: { client?: string; json?: boolean }) =>
      withDatabase(async (db) => {
        const endpoints = await listEndpoints(db, options.client);
        if (options.json) out(JSON.stringify(endpoints.map((endpoint) => ({ ...toEndpointView(endpoint), clientId: endpoint.clientId })), null, 2));
        else if (endpoints.length === 0) out('no endpoints');
        else out(table([['ID', 'CLIENT', 'ENABLED', 'URL', 'TYPES'], ...endpoints.map((e) => [e.id, e.clientId, e.enabled ? 'yes' : 'no', e.url, e.eventTypes.join(',')])]));
      }),
    );

  events
    .command('delete')
    .description('delete an endpoint with its deliveries')
    .argument('<endpoint>', 'endpoint id')
    .action((id: string) =>
      withDatabase(async (db) => {
        if (!(await deleteEndpoint(db, id))) helpers.fail(`no endpoint with id "${id}"`);
        out(`deleted endpoint ${id}`);
      }),
    );

  events
    .command('rotate-secret')
    .description('replace an endpoint’s secret; the old one keeps signing beside it for 24 hours')
    .argument('<endpoint>', 'endpoint id')
    .action((id: string) =>
      withDatabase(async (db) => {
        const endpoint = await findEndpoint(db, id);
        if (!endpoint) helpers.fail(`no endpoint with id "${id}"`);
        const { secret, previousExpiresAt } = await rotateEndpointSecret(db, crypto(), endpoint);
        out(`new secret for endpoint ${id}: ${secret}`);
        out(`the old secret also signs until ${new Date(previousExpiresAt).toISOString()}; store the new one now: it is not shown again`);
      }),
    );

  events
    .command('deliveries')
    .description('the delivery log of an endpoint, newest first')
    .argument('<endpoint>', 'endpoint id')
    .option('--max <n>', 'how many (default 20)', '20')
    .option('--json', 'print as JSON')
    .action((id: string, options: { max: string; json?: boolean }) =>
      withDatabase(async (db) => {
        const max = Number(options.max);
        if (!Number.isInteger(max) || max < 1 || max > 1000) helpers.fail('--max must be a whole number from 1 to 1000', 2);
        if (!(await findEndpoint(db, id))) helpers.fail(`no endpoint with id "${id}"`);
        const list = (await listDeliveries(db, id, { max })).map(toDeliveryView);
        if (options.json) out(JSON.stringify(list, null, 2));
        else if (list.length === 0) out('no deliveries');
        else out(table([['ID', 'EVENT', 'TYPE', 'STATUS', 'ATTEMPTS', 'LAST', 'CREATED'], ...list.map((d) => [d.id, d.eventId, d.eventType, d.status, String(d.attempts), d.lastError ?? String(d.lastStatusCode ?? ''), d.createdAt])]));
      }),
    );

  events
    .command('replay')
    .description('send a delivery again, or (with --endpoint and --since) every delivery of an endpoint since a time')
    .argument('[delivery]', 'delivery id (msg_<n>)')
    .option('--endpoint <id>', 'replay this endpoint’s deliveries')
    .option('--since <time>', 'ISO 8601 time: deliveries created at or after it')
    .action((deliveryId: string | undefined, options: { endpoint?: string; since?: string }) =>
      withDatabase(async (db) => {
        const now = Date.now();
        if (deliveryId !== undefined) {
          const id = parseDeliveryId(deliveryId);
          const delivery = id === undefined ? undefined : await findDelivery(db, id);
          if (id === undefined || !delivery) return helpers.fail(`no delivery with id "${deliveryId}"`);
          await readOlderGrants(db, crypto(), delivery.clientId);
          out(`queued ${await replayDeliveries(db, { deliveryId: id }, now)} delivery`);
          return;
        }
        const since = options.since === undefined ? Number.NaN : Date.parse(options.since);
        if (!options.endpoint || Number.isNaN(since)) helpers.fail('give a delivery id, or --endpoint <id> and --since <ISO time>', 2);
        const endpoint = await findEndpoint(db, options.endpoint);
        if (!endpoint) return helpers.fail(`no endpoint with id "${options.endpoint}"`);
        await readOlderGrants(db, crypto(), endpoint.clientId);
        out(`queued ${await replayDeliveries(db, { endpointId: options.endpoint, since }, now)} deliveries (a running service sends them within its poll interval)`);
      }),
    );

  events
    .command('status')
    .description('deliveries by status')
    .action(() =>
      withDatabase(async (db) => {
        const counts = await deliveryCounts(db);
        out(table([['STATUS', 'COUNT'], ...(['pending', 'delivered', 'failed', 'skipped'] as const).map((status) => [status, String(counts[status] ?? 0)])]));
      }),
    );
}
