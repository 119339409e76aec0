// The events outbox in the database, on every dialect: appendEvent numbers a system's events and
// queues deliveries only for endpoints of clients the system's users authorized, a delivery
// behind a pending one waits until the first finishes, retention purges finished events only, and
// queueing deliveries wakes the dispatchers at commit (this process's and others') with no call
// of the writer's own.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHANGE_CHANNEL, decodeTopics, type Changes } from '../../src/db/changes/notes.js';
import { deliveriesTopic } from '../../src/db/changes/topics.js';
import { type Database } from '../../src/db/database.js';
import { insertEndpoint } from '../../src/db/repositories/events/endpoints.js';
import { appendEvent, appendEvents } from '../../src/db/repositories/events/outbox.js';
import { purgeEvents } from '../../src/db/repositories/events/purge.js';
import { WAITING, finishAttempts } from '../../src/db/repositories/events/queue.js';
import { DIALECTS, type TestDatabase, closeTestDatabase, openMigratedTestDatabase } from '../support/dialects.js';

const DAY = 86_400_000;
const OWNER = '700000000000000011';
const SUB = '700000000000000012';
/** The service itself acting: no client, no account. */
const NOBODY = { clientId: null, accountId: null };

/**
 * A connection LISTENing on the change channel as another process's change watch does: it hears
 * only what the database sends (the notes of committed transactions of its schema), never this
 * process's own in-memory publication.
 */
async function listenElsewhere(url: string) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const { rows } = await client.query<{ schema: string }>('select current_schema() as schema');
  const prefix = `${rows[0]?.schema ?? ''} `;
  const heard: Changes[] = [];
  client.on('notification', (message) => {
    if (message.channel === CHANGE_CHANNEL && message.payload?.startsWith(prefix)) heard.push(decodeTopics(message.payload.slice(prefix.length)));
  });
  await client.query(`listen ${CHANGE_CHANNEL}`);
  return {
    /** What was heard once every note committed before now has arrived (a round trip: see PostgresListenerWatch.readChanges). */
    async caughtUp(): Promise<Changes[]> {
      await client.query('');
      return heard;
    },
    end: () => client.end(),
  };
}

describe.each(DIALECTS)('the events outbox (%s)', (dialect) => {
  let testDatabase: TestDatabase;
  let database: Database;
  let systemId: number;

  const append = (type: 'alter.deleted', alterId: number, now = Date.now()) =>
    database.db.transaction().execute((trx) => appendEvent(trx, systemId, { clientId: 'actor-app', accountId: OWNER }, { type, alterId }, now));
  const deliveries = () => database.db.selectFrom('event_deliveries').selectAll().orderBy('event_id').orderBy('endpoint_id').execute();

  beforeAll(async () => {
    ({ testDatabase, database } = await openMigratedTestDatabase(dialect));
    const now = Date.now();
    for (const id of [OWNER, SUB]) await database.db.insertInto('users').values({ id, username: null, created_at: now, last_sign_in_at: null }).execute();
    systemId = (await database.db.insertInto('systems').values({ user_id: OWNER, name: 'S', created_at: now }).returning('id').executeTakeFirstOrThrow()).id;
    await database.db.insertInto('system_sub_accounts').values({ user_id: SUB, system_id: systemId }).execute();
    for (const id of ['authorized', 'via-sub', 'stranger', 'expired']) {
      await database.db.insertInto('oauth_clients').values({ id, name: id, secret_hash: null, redirect_uris: '[]', grant_types: '[]', scopes: '', first_party: 0, created_at: now, secret_rotated_at: null }).execute();
      await insertEndpoint(database.db, { id: `ep_${id}`, clientId: id, url: 'https://hooks.example/', eventTypes: ['alter.deleted'], description: null, enabled: true, secretSealed: 'x', createdAt: now, updatedAt: now });
    }
    await insertEndpoint(database.db, { id: 'ep_other_types', clientId: 'authorized', url: 'https://hooks.example/', eventTypes: ['system.updated'], description: null, enabled: true, secretSealed: 'x', createdAt: now, updatedAt: now });
    const grant = (id: string, account: string, client: string, expiresAt: number | null) =>
      database.db.insertInto('oidc_payloads').values({ id_hash: id, model: 'Grant', payload: 'sealed', grant_id: id, uid_hash: null, user_code_hash: null, account_id: account, client_id: client, expires_at: expiresAt, consumed_at: null }).execute();
    await grant('g1', OWNER, 'authorized', now + DAY);
    await grant('g2', SUB, 'via-sub', null);
    await grant('g3', OWNER, 'expired', now - 1);
  });
  afterAll(async () => {
    await closeTestDatabase({ testDatabase, database });
  });

  it('numbers events per system and queues deliveries for authorized clients’ endpoints that want the type', async () => {
    const first = await append('alter.deleted', 1);
    const second = await append('alter.deleted', 2);
    const events = await database.db.selectFrom('events').select(['id', 'seq', 'actor_client_id']).orderBy('id').execute();
    expect(events.map((e) => [Number(e.id), Number(e.seq), e.actor_client_id])).toEqual([
      [first, 1, 'actor-app'],
      [second, 2, 'actor-app'],
    ]);
    const queued = await deliveries();
    expect(queued.map((d) => [Number(d.event_id), d.endpoint_id])).toEqual([
      [first, 'ep_authorized'],
      [first, 'ep_via-sub'],
      [second, 'ep_authorized'],
      [second, 'ep_via-sub'],
    ]);
    // The second waits behind the first until that one finishes.
    expect(queued.filter((d) => Number(d.event_id) === second).every((d) => Number(d.next_attempt_at) === WAITING)).toBe(true);
    const head = queued.find((d) => Number(d.event_id) === first && d.endpoint_id === 'ep_authorized');
    if (!head) throw new Error('no head');
    const now = Date.now();
    await finishAttempts(database.db, [{ outcome: { deliveryId: Number(head.id), endpointId: 'ep_authorized', systemId, attemptedAt: now, durationMs: 3, statusCode: 204, error: null, next: { status: 'delivered' } }, sent: true }], dialect === 'postgres');
    const after = await deliveries();
    expect(after.filter((d) => d.endpoint_id === 'ep_authorized').map((d) => [d.status, Number(d.next_attempt_at) === WAITING])).toEqual([
      ['delivered', false],
      ['pending', false],
    ]);
    expect(after.filter((d) => d.endpoint_id === 'ep_via-sub').map((d) => Number(d.next_attempt_at) === WAITING)).toEqual([false, true]);
  });

  it('appendEvents numbers many events in order and queues their deliveries as appendEvent would one by one: only an endpoint’s first can be due', async () => {
    const now = Date.now();
    const other = '700000000000000013';
    await database.db.insertInto('users').values({ id: other, username: null, created_at: now, last_sign_in_at: null }).execute();
    const otherSystem = (await database.db.insertInto('systems').values({ user_id: other, name: 'T', created_at: now }).returning('id').executeTakeFirstOrThrow()).id;
    await database.db
      .insertInto('oidc_payloads')
      .values({ id_hash: 'g4', model: 'Grant', payload: 'sealed', grant_id: 'g4', uid_hash: null, user_code_hash: null, account_id: other, client_id: 'authorized', expires_at: null, consumed_at: null })
      .execute();
    const appendMany = (alterIds: number[]) =>
      database.db.transaction().execute((trx) =>
        appendEvents(trx, otherSystem, NOBODY, alterIds.map((alterId) => ({ type: 'alter.deleted' as const, alterId })), now),
      );
    const queuedOf = async () =>
      (await database.db.selectFrom('event_deliveries').innerJoin('events', 'events.id', 'event_deliveries.event_id').select(['events.seq', 'events.payload', 'event_deliveries.endpoint_id', 'event_deliveries.next_attempt_at']).where('event_deliveries.system_id', '=', otherSystem).orderBy('events.seq').execute()).map(
        (row) => [Number(row.seq), (JSON.parse(row.payload) as { alterId: number }).alterId, row.endpoint_id, Number(row.next_attempt_at) === WAITING],
      );
    await appendMany([30, 10, 20]);
    // Nothing of this system was pending for the endpoint: the first is due, the others wait behind it.
    expect(await queuedOf()).toEqual([
      [1, 30, 'ep_authorized', false],
      [2, 10, 'ep_authorized', true],
      [3, 20, 'ep_authorized', true],
    ]);
    // One is pending now: every new one waits, the batch's first included.
    await appendMany([40, 50]);
    expect((await queuedOf()).slice(3)).toEqual([
      [4, 40, 'ep_authorized', true],
      [5, 50, 'ep_authorized', true],
    ]);
  });

  it('purges old events whose deliveries are all finished, with their log', async () => {
    await database.db.updateTable('event_deliveries').set({ status: 'failed' }).where('endpoint_id', '=', 'ep_via-sub').execute();
    const old = await append('alter.deleted', 3, Date.now() - 40 * DAY);
    await database.db.updateTable('event_deliveries').set({ status: 'delivered' }).where('event_id', '=', old).execute();
    const stillPending = await append('alter.deleted', 4, Date.now() - 40 * DAY);
    const before = Date.now() - 30 * DAY;
    expect(await purgeEvents(database.db, before, 1)).toBe(1);
    const left = await database.db.selectFrom('events').select('id').orderBy('id').execute();
    expect(left.map((e) => Number(e.id))).not.toContain(old);
    expect(left.map((e) => Number(e.id))).toContain(stillPending);
    expect(await database.db.selectFrom('event_deliveries').select('id').where('event_id', '=', old).execute()).toEqual([]);
    expect(await database.db.selectFrom('event_attempts').select('id').execute()).toHaveLength(1);
  });

  it('wakes the dispatchers at commit with the endpoints it queued deliveries for, here and in other processes, and nothing on rollback', async () => {
    // What a dispatcher subscribes to (events/dispatcher.ts), with no call from the writer.
    const here: Changes[] = [];
    const stop = database.changes().subscribe((changes) => {
      if (changes !== 'all') here.push(changes);
    });
    const elsewhere = dialect === 'postgres' ? await listenElsewhere(testDatabase.url) : undefined;
    const wakes = (heard: Changes[]) => heard.filter((changes) => changes === 'all' || changes.some((topic) => topic.startsWith('deliveries:')));
    try {
      await expect(
        database.db.transaction().execute(async (trx) => {
          await appendEvent(trx, systemId, NOBODY, { type: 'alter.deleted', alterId: 5 });
          throw new Error('rolled back');
        }),
      ).rejects.toThrow('rolled back');
      expect(here).toEqual([]);
      if (elsewhere) expect(wakes(await elsewhere.caughtUp())).toEqual([]);

      // Two events, one note per endpoint; handed over by the time the commit returns.
      await database.db.transaction().execute(async (trx) => {
        await appendEvent(trx, systemId, NOBODY, { type: 'alter.deleted', alterId: 6 });
        await appendEvent(trx, systemId, NOBODY, { type: 'alter.deleted', alterId: 7 });
      });
      const woken = [deliveriesTopic('ep_authorized'), deliveriesTopic('ep_via-sub')];
      expect(here[0]).toEqual(woken);
      if (elsewhere) expect(wakes(await elsewhere.caughtUp())).toEqual([woken]);
    } finally {
      stop();
      await elsewhere?.end();
    }
  });
});
