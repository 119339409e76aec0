// The front as a list of switches, never overwritten: each switch names the alters fronting from
// then on (lowest position first: the primary). The current front is the newest switch; each
// client's own newest switch is what it last pushed. "Newest" orders by time, then by id (a switch
// recorded late with a past timestamp takes its place in time).
import { sql, type Kysely, type Transaction } from 'kysely';
import { sameAlters, type SwitchRecord } from '../../domain/front.js';
import { Problem } from '../../domain/problems.js';
import { isForeignKeyViolation } from '../errors.js';
import type { Schema } from '../tables.js';
import { touchSystem } from './system-revision.js';
import { appendEvent } from './events/outbox.js';

type Db = Kysely<Schema>;
type Executor = Db | Transaction<Schema>;

export interface NewSwitch {
  clientId: string;
  /** In order, the primary first; empty switches out. */
  alterIds: number[];
  /**
   * When the front changed; undefined for now, read once the system's lock is held. A time read
   * before the lock would let concurrent identical switches be checked against a front in effect
   * before each other's, so that both are recorded.
   */
  switchedAt: number | undefined;
}

/**
 * Records a switch in one transaction, after the system's row lock (so concurrent switches are
 * checked one after another): every alter must be the system's (`unknown-alter`, naming
 * `alterField(index)`), and a switch that would change nothing is refused (`same-front`).
 * It changes nothing when it names the same alters, in the same order, as both the switch in
 * effect at its time and the calling client's own switch in effect then (an app repeating the
 * system's front still moves its own, which an autoproxy entry may follow).
 */
export async function recordSwitch(db: Db, systemId: number, change: NewSwitch, alterField: (index: number) => string): Promise<SwitchRecord> {
  try {
    const recorded = await db.transaction().execute(async (trx) => {
      // The profile's front may change ("front" autoproxy); this also takes the system's lock.
      await touchSystem(trx, systemId);
      const switchedAt = change.switchedAt ?? Date.now();
      if (change.alterIds.length > 0) {
        const found = await trx.selectFrom('alters').select('id').where('system_id', '=', systemId).where('id', 'in', change.alterIds).execute();
        const mine = new Set(found.map((row) => Number(row.id)));
        const missing = change.alterIds.findIndex((id) => !mine.has(id));
        if (missing >= 0) throw new Problem('unknown-alter', 'your system has no such alter', alterField(missing));
      }
      const inEffect = await switchInEffect(trx, systemId, switchedAt, null);
      const ownInEffect = inEffect?.clientId === change.clientId ? inEffect : await switchInEffect(trx, systemId, switchedAt, change.clientId);
      if (sameAlters(inEffect?.alterIds ?? [], change.alterIds) && sameAlters(ownInEffect?.alterIds ?? [], change.alterIds)) {
        throw new Problem('same-front', change.alterIds.length === 0 ? 'nobody is fronting already' : 'these alters are already fronting, in this order');
      }
      const created = await trx
        .insertInto('switches')
        .values({ system_id: systemId, client_id: change.clientId, switched_at: switchedAt })
        .returning('id')
        .executeTakeFirstOrThrow();
      if (change.alterIds.length > 0) {
        await trx
          .insertInto('switch_members')
          .values(change.alterIds.map((alterId, position) => ({ switch_id: created.id, alter_id: alterId, position })))
          .execute();
      }
      const client = await trx.selectFrom('oauth_clients').select('name').where('id', '=', change.clientId).executeTakeFirst();
      await appendEvent(trx, systemId, change.clientId, { type: 'switch.created', switchId: Number(created.id), alterIds: [...change.alterIds], timestamp: new Date(switchedAt).toISOString() });
      return { id: Number(created.id), systemId, clientId: change.clientId, clientName: client?.name ?? null, switchedAt, alterIds: [...change.alterIds] };
    });
    return recorded;
  } catch (error) {
    // An alter deleted between the check and the insert (PostgreSQL, another transaction).
    if (isForeignKeyViolation(error)) throw new Problem('unknown-alter', 'your system has no such alter', alterField(0));
    throw error;
  }
}

interface SwitchRow {
  id: number;
  system_id: number;
  client_id: string;
  client_name: string | null;
  switched_at: number;
}

const switchColumns = ['s.id', 's.system_id', 's.client_id', 'c.name as client_name', 's.switched_at'] as const;

/** Attaches each switch's alters, in position order. */
async function withMembers(db: Executor, rows: SwitchRow[]): Promise<SwitchRecord[]> {
  const members = new Map<number, number[]>(rows.map((row) => [Number(row.id), []]));
  if (rows.length > 0) {
    const found = await db
      .selectFrom('switch_members')
      .select(['switch_id', 'alter_id'])
      .where('switch_id', 'in', [...members.keys()])
      .orderBy('switch_id')
      .orderBy('position')
      .execute();
    for (const row of found) members.get(Number(row.switch_id))?.push(Number(row.alter_id));
  }
  return rows.map((row) => ({
    id: Number(row.id),
    systemId: Number(row.system_id),
    clientId: row.client_id,
    clientName: row.client_name,
    switchedAt: Number(row.switched_at),
    alterIds: members.get(Number(row.id)) ?? [],
  }));
}

const switchesOf = (db: Executor, systemId: number) =>
  db
    .selectFrom('switches as s')
    .leftJoin('oauth_clients as c', 'c.id', 's.client_id')
    .select(switchColumns)
    .where('s.system_id', '=', systemId)
    .orderBy('s.switched_at', 'desc')
    .orderBy('s.id', 'desc');

/** The newest switch at or before `at` (of one client, when given). */
async function switchInEffect(db: Executor, systemId: number, at: number, clientId: string | null): Promise<SwitchRecord | undefined> {
  const row = await switchesOf(db, systemId)
    .where('s.switched_at', '<=', at)
    .$if(clientId !== null, (q) => q.where('s.client_id', '=', clientId ?? ''))
    .limit(1)
    .executeTakeFirst();
  return row ? (await withMembers(db, [row]))[0] : undefined;
}

/** The system's current front: its newest switch. */
export async function currentSwitch(db: Db, systemId: number): Promise<SwitchRecord | undefined> {
  const row = await switchesOf(db, systemId).limit(1).executeTakeFirst();
  return row ? (await withMembers(db, [row]))[0] : undefined;
}

/**
 * Each client's newest switch, newest first (the first is the current front). A system has few
 * clients and may have many switches: the clients are found by walking the (system, client) index
 * one distinct value at a time (a loose index scan, which neither database does by itself), then
 * each one's newest switch by the same index, so the cost follows the clients, not the history.
 */
export async function newestSwitchByClient(db: Db, systemId: number): Promise<SwitchRecord[]> {
  const result = await sql<SwitchRow>`
    with recursive clients (client_id) as (
      select min(client_id) from switches where system_id = ${systemId}
      union all
      select (select min(x.client_id) from switches x where x.system_id = ${systemId} and x.client_id > clients.client_id)
      from clients where clients.client_id is not null
    )
    select s.id, s.system_id, s.client_id, c.name as client_name, s.switched_at
    from switches s
    left join oauth_clients c on c.id = s.client_id
    where s.id in (
      select (select n.id from switches n where n.system_id = ${systemId} and n.client_id = clients.client_id order by n.switched_at desc, n.id desc limit 1)
      from clients where clients.client_id is not null
    )
    order by s.switched_at desc, s.id desc`.execute(db);
  return withMembers(db, result.rows);
}

export interface HistoryPage {
  max: number;
  skip: number;
  /** Only switches older than this one (a switch id of the system). */
  before?: number;
}

/**
 * A page of the history, newest first, and whether older switches follow; undefined when `before`
 * names no switch of the system.
 */
export async function switchHistory(db: Db, systemId: number, page: HistoryPage): Promise<{ switches: SwitchRecord[]; more: boolean } | undefined> {
  let cursor: { id: number; at: number } | undefined;
  if (page.before !== undefined) {
    const row = await db.selectFrom('switches').select(['id', 'switched_at']).where('system_id', '=', systemId).where('id', '=', page.before).executeTakeFirst();
    if (!row) return undefined;
    cursor = { id: Number(row.id), at: Number(row.switched_at) };
  }
  const rows = await switchesOf(db, systemId)
    // Older than the cursor in (time, id) order; the first condition alone bounds the index range.
    .$if(cursor !== undefined, (q) =>
      q
        .where('s.switched_at', '<=', cursor?.at ?? 0)
        .where((eb) => eb.or([eb('s.switched_at', '<', cursor?.at ?? 0), eb('s.id', '<', cursor?.id ?? 0)])),
    )
    .limit(page.max + 1)
    .offset(page.skip)
    .execute();
  return { switches: await withMembers(db, rows.slice(0, page.max)), more: rows.length > page.max };
}

/**
 * What "front" autoproxy follows, for the proxy profile: the primary fronter of the newest switch
 * (`latest`, null after a switch-out) and, for the given clients (entries that follow one app),
 * the primary of each one's newest switch (absent after its switch-out). The primary is the lowest
 * position left: if the first alter was deleted, the next one is the primary.
 */
export async function latestPushes(db: Db, systemId: number, clients: string[]): Promise<{ latest: number | null; byClient: Record<string, number> }> {
  const primaryOf = (clientId: string | null) =>
    db
      .selectFrom('switches as s')
      .select((eb) =>
        eb
          .selectFrom('switch_members as m')
          .select('m.alter_id')
          .whereRef('m.switch_id', '=', 's.id')
          .orderBy('m.position')
          .limit(1)
          .as('alter_id'),
      )
      .where('s.system_id', '=', systemId)
      .$if(clientId !== null, (q) => q.where('s.client_id', '=', clientId ?? ''))
      .orderBy('s.switched_at', 'desc')
      .orderBy('s.id', 'desc')
      .limit(1)
      .executeTakeFirst();
  const newest = await primaryOf(null);
  const byClient: Record<string, number> = {};
  for (const client of clients) {
    const row = await primaryOf(client);
    if (row?.alter_id != null) byClient[client] = Number(row.alter_id);
  }
  return { latest: newest?.alter_id != null ? Number(newest.alter_id) : null, byClient };
}
