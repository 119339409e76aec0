// The front as a list of switches, never overwritten: each switch names the alters fronting from
// then on (lowest position first: the primary). The current front is the newest switch; each
// client's own newest switch is what it last pushed. "Newest" orders by time, then by id (a switch
// recorded late with a past timestamp takes its place in time).
import type { EventActor } from '../../domain/events.js';
import { sql, type Kysely, type Transaction } from 'kysely';
import { repeatsFront, sameAlters, type SwitchRecord } from '../../domain/front.js';
import { Problem } from '../../domain/problems.js';
import { isForeignKeyViolation } from '../errors.js';
import type { Schema } from '../tables.js';
import { settleFrontDays } from './front-days.js';
import { touchSystem } from './system-revision.js';
import { appendEvent } from './events/outbox.js';

type Db = Kysely<Schema>;
type Executor = Db | Transaction<Schema>;

export interface NewSwitch {
  clientId: string;
  /** The account whose token made it (the event's actor). */
  accountId: string | null;
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
      await settleFrontDays(trx, systemId);
      const client = await trx.selectFrom('oauth_clients').select('name').where('id', '=', change.clientId).executeTakeFirst();
      await appendEvent(trx, systemId, change, { type: 'switch.created', switchId: Number(created.id), alterIds: [...change.alterIds], timestamp: new Date(switchedAt).toISOString() });
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

// ---------------------------------------------------------------------------------------------
// Editing and deleting switches. The history is ordered by (time, id) and keeps the rule POST
// /front enforces: no switch repeats the front before it (repeatsFront). An edit may move a switch
// past its neighbours (it takes its new place in time); every switch whose predecessors changed is
// checked again, at the old place and the new, and an edit that would leave a repeat anywhere is
// refused whole. A delete never refuses: a switch that would repeat the one before it once the
// deleted one is gone (the later twin) is deleted with it.

/** One switch of the system, with its members, or undefined. */
async function switchById(db: Executor, systemId: number, switchId: number): Promise<SwitchRecord | undefined> {
  const row = await switchesOf(db, systemId).where('s.id', '=', switchId).executeTakeFirst();
  return row ? (await withMembers(db, [row]))[0] : undefined;
}

/** The switch right before (or after) `of` in (time, id) order, of one client when given. */
async function neighbourOf(db: Executor, of: Pick<SwitchRecord, 'id' | 'systemId' | 'switchedAt'>, side: 'before' | 'after', clientId: string | null): Promise<SwitchRecord | undefined> {
  const at = of.switchedAt;
  const row = await db
    .selectFrom('switches as s')
    .leftJoin('oauth_clients as c', 'c.id', 's.client_id')
    .select(switchColumns)
    .where('s.system_id', '=', of.systemId)
    .$if(side === 'before', (q) =>
      q
        .where('s.switched_at', '<=', at)
        .where((eb) => eb.or([eb('s.switched_at', '<', at), eb('s.id', '<', of.id)]))
        .orderBy('s.switched_at', 'desc')
        .orderBy('s.id', 'desc'),
    )
    .$if(side === 'after', (q) =>
      q
        .where('s.switched_at', '>=', at)
        .where((eb) => eb.or([eb('s.switched_at', '>', at), eb('s.id', '>', of.id)]))
        .orderBy('s.switched_at', 'asc')
        .orderBy('s.id', 'asc'),
    )
    .$if(clientId !== null, (q) => q.where('s.client_id', '=', clientId ?? ''))
    .limit(1)
    .executeTakeFirst();
  return row ? (await withMembers(db, [row]))[0] : undefined;
}

/** The switches whose predecessors change when `record` moves or goes: the next one, and the next one of its app. */
async function followersOf(db: Executor, record: SwitchRecord): Promise<SwitchRecord[]> {
  const next = await neighbourOf(db, record, 'after', null);
  const nextOwn = next?.clientId === record.clientId ? next : await neighbourOf(db, record, 'after', record.clientId);
  return [next, nextOwn].filter((found): found is SwitchRecord => found !== undefined);
}

/** Whether the switch, as stored now, repeats the front before it. */
async function repeatsBefore(db: Executor, record: SwitchRecord): Promise<boolean> {
  const inEffect = await neighbourOf(db, record, 'before', null);
  const ownInEffect = inEffect?.clientId === record.clientId ? inEffect : await neighbourOf(db, record, 'before', record.clientId);
  return repeatsFront(record.alterIds, inEffect?.alterIds, ownInEffect?.alterIds);
}

async function checkAlters(trx: Transaction<Schema>, systemId: number, alterIds: readonly number[], alterField: (index: number) => string): Promise<void> {
  if (alterIds.length === 0) return;
  const found = await trx.selectFrom('alters').select('id').where('system_id', '=', systemId).where('id', 'in', [...alterIds]).execute();
  const mine = new Set(found.map((row) => Number(row.id)));
  const missing = alterIds.findIndex((id) => !mine.has(id));
  if (missing >= 0) throw new Problem('unknown-alter', 'your system has no such alter', alterField(missing));
}

const noSuchSwitch = () => new Problem('unknown-switch', 'your system has no such switch: GET /v1/users/@me/front/history lists them with their ids', 'switch');

export interface SwitchEdit {
  /** The alters from then on, in order; undefined keeps them. */
  alterIds?: number[];
  /** Its new time; undefined keeps it. */
  switchedAt?: number;
}

/**
 * Edits a switch in one transaction, under the system's lock: `unknown-switch` when the system has
 * no such switch, `unknown-alter` as recordSwitch, `same-front` (changing nothing) when the switch
 * would repeat the front before it, or make the switch after it (or its app's next one) a repeat,
 * at its old place or its new one. The switch keeps the app that made it; `actor` is who
 * edited it, for the event.
 */
export async function editSwitch(
  db: Db,
  systemId: number,
  switchId: number,
  edit: SwitchEdit,
  actor: EventActor,
  alterField: (index: number) => string,
): Promise<SwitchRecord> {
  try {
    return await db.transaction().execute(async (trx) => {
      await touchSystem(trx, systemId);
      const current = await switchById(trx, systemId, switchId);
      if (!current) throw noSuchSwitch();
      const alterIds = edit.alterIds ?? current.alterIds;
      const switchedAt = edit.switchedAt ?? current.switchedAt;
      // `{}`, or the values it has: nothing to write, no event.
      if (switchedAt === current.switchedAt && sameAlters(alterIds, current.alterIds)) return current;
      await checkAlters(trx, systemId, alterIds, alterField);
      const oldFollowers = await followersOf(trx, current);
      if (switchedAt !== current.switchedAt) await trx.updateTable('switches').set({ switched_at: switchedAt }).where('id', '=', switchId).execute();
      if (!sameAlters(alterIds, current.alterIds)) {
        await trx.deleteFrom('switch_members').where('switch_id', '=', switchId).execute();
        if (alterIds.length > 0) {
          await trx
            .insertInto('switch_members')
            .values(alterIds.map((alterId, position) => ({ switch_id: switchId, alter_id: alterId, position })))
            .execute();
        }
      }
      const edited: SwitchRecord = { ...current, alterIds: [...alterIds], switchedAt };
      const checked = new Set<number>();
      for (const candidate of [edited, ...(await followersOf(trx, edited)), ...oldFollowers]) {
        if (checked.has(candidate.id)) continue;
        checked.add(candidate.id);
        if (await repeatsBefore(trx, candidate)) {
          throw new Problem(
            'same-front',
            candidate.id === switchId
              ? 'this would repeat the switch before it (the same alters in the same order): delete the switch instead'
              : `this would make switch ${candidate.id}, which follows, repeat the front before it: edit or delete that one first`,
          );
        }
      }
      await settleFrontDays(trx, systemId);
      await appendEvent(trx, systemId, actor, {
        type: 'switch.updated',
        switchId,
        alterIds: [...alterIds],
        timestamp: new Date(switchedAt).toISOString(),
      });
      return edited;
    });
  } catch (error) {
    if (isForeignKeyViolation(error)) throw new Problem('unknown-alter', 'your system has no such alter', alterField(0));
    throw error;
  }
}

/**
 * Deletes a switch in one transaction, under the system's lock, and with it each switch that would
 * then repeat the front before it (the later twin: a switch between two identical ones was
 * deleted). Returns the ids of those twins; `unknown-switch` when the system has no such switch.
 */
export async function deleteSwitch(db: Db, systemId: number, switchId: number, actor: EventActor): Promise<{ alsoDeleted: number[] }> {
  return db.transaction().execute(async (trx) => {
    await touchSystem(trx, systemId);
    const target = await switchById(trx, systemId, switchId);
    if (!target) throw noSuchSwitch();
    const alsoDeleted: number[] = [];
    const remove = async (record: SwitchRecord): Promise<SwitchRecord[]> => {
      const followers = await followersOf(trx, record);
      await trx.deleteFrom('switch_members').where('switch_id', '=', record.id).execute();
      await trx.deleteFrom('switches').where('id', '=', record.id).execute();
      await appendEvent(trx, systemId, actor, { type: 'switch.deleted', switchId: record.id });
      return followers;
    };
    // A twin's removal leaves the fronts before its followers as they were (it repeated them), so
    // this ends after one round; the list guards against anything else.
    const pending = await remove(target);
    while (pending.length > 0) {
      const candidate = pending.shift() as SwitchRecord;
      if (alsoDeleted.includes(candidate.id)) continue;
      const fresh = await switchById(trx, systemId, candidate.id);
      if (!fresh || !(await repeatsBefore(trx, fresh))) continue;
      alsoDeleted.push(fresh.id);
      pending.push(...(await remove(fresh)));
    }
    await settleFrontDays(trx, systemId);
    return { alsoDeleted };
  });
}

/** The privacy bits of the system's alters (at most 2,000 small rows), for what another viewer of the statistics may see. */
export async function alterBitsForStats(db: Db, systemId: number): Promise<Array<{ id: number; public: number }>> {
  const rows = await db.selectFrom('alters').select(['id', 'public']).where('system_id', '=', systemId).execute();
  return rows.map((row) => ({ id: Number(row.id), public: row.public }));
}
