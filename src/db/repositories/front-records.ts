// The front history: one row per push, never overwritten. "Current" is the newest row per client.
import { sql, type Kysely } from 'kysely';
import type { FrontRecord } from '../../domain/front.js';
import { ALTER_VISIBLE_BIT } from '../../domain/privacy.js';
import type { Schema } from '../tables.js';
import { touchSystem } from './systems.js';

type Db = Kysely<Schema>;

/**
 * Records that `clientId` pushed the alter to the front. One INSERT … SELECT, so the alter is
 * checked to belong to the system in the same statement that writes. False when it does not.
 */
export async function pushFront(db: Db, systemId: number, alterId: number, clientId: string, now: number): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const result = await trx
      .insertInto('front_records')
      .columns(['system_id', 'alter_id', 'client_id', 'pushed_at'])
      .expression(
        trx
          .selectFrom('alters')
          .select([sql.val(systemId).as('system_id'), 'id', sql.val(clientId).as('client_id'), sql.val(now).as('pushed_at')])
          .where('system_id', '=', systemId)
          .where('id', '=', alterId),
      )
      .executeTakeFirst();
    const pushed = Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
    // "front" autoproxy speaks as the newest push: the proxy profile changed.
    if (pushed) await touchSystem(trx, systemId);
    return pushed;
  });
}

/**
 * The alter each "front" source last pushed: the newest push of all (`latest`) and, for the given
 * clients (autoproxy entries that follow one integration), each one's newest push.
 */
export async function latestPushes(db: Db, systemId: number, clients: string[]): Promise<{ latest: number | null; byClient: Record<string, number> }> {
  const newest = await db
    .selectFrom('front_records')
    .select('alter_id')
    .where('system_id', '=', systemId)
    .orderBy('pushed_at', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
  const byClient: Record<string, number> = {};
  for (const client of clients) {
    const row = await db
      .selectFrom('front_records')
      .select('alter_id')
      .where('system_id', '=', systemId)
      .where('client_id', '=', client)
      .orderBy('pushed_at', 'desc')
      .orderBy('id', 'desc')
      .limit(1)
      .executeTakeFirst();
    if (row) byClient[client] = Number(row.alter_id);
  }
  return { latest: newest ? Number(newest.alter_id) : null, byClient };
}

interface FrontRow {
  id: number;
  system_id: number;
  alter_id: number;
  client_id: string;
  client_name: string | null;
  pushed_at: number;
}

const toRecord = (row: FrontRow): FrontRecord => ({
  id: Number(row.id),
  systemId: Number(row.system_id),
  alterId: Number(row.alter_id),
  clientId: row.client_id,
  clientName: row.client_name,
  pushedAt: Number(row.pushed_at),
});

const visibleCondition = (onlyVisible: boolean) =>
  onlyVisible ? sql`and (a.public & ${sql.lit(ALTER_VISIBLE_BIT)}) = ${sql.lit(ALTER_VISIBLE_BIT)}` : sql``;

/**
 * The newest record of each client, newest first. Visibility is applied after picking the newest,
 * so a hidden alter at the front hides that client's entry rather than showing an older one.
 */
export async function currentFront(db: Db, systemId: number, onlyVisible: boolean): Promise<FrontRecord[]> {
  const result = await sql<FrontRow>`
    select f.id, f.system_id, f.alter_id, f.client_id, c.name as client_name, f.pushed_at from (
      select id, client_id, row_number() over (partition by client_id order by pushed_at desc, id desc) as position
      from front_records
      where system_id = ${systemId}
    ) latest
    join front_records f on f.id = latest.id
    join alters a on a.id = f.alter_id
    left join oauth_clients c on c.id = f.client_id
    where latest.position = 1 ${visibleCondition(onlyVisible)}
    order by f.pushed_at desc, f.id desc`.execute(db);
  return result.rows.map(toRecord);
}

/** Every push, newest first, one page at a time. */
export async function frontHistory(db: Db, systemId: number, page: { skip: number; max: number }, onlyVisible: boolean): Promise<FrontRecord[]> {
  const result = await sql<FrontRow>`
    select f.id, f.system_id, f.alter_id, f.client_id, c.name as client_name, f.pushed_at
    from front_records f
    join alters a on a.id = f.alter_id
    left join oauth_clients c on c.id = f.client_id
    where f.system_id = ${systemId} ${visibleCondition(onlyVisible)}
    order by f.pushed_at desc, f.id desc
    limit ${page.max} offset ${page.skip}`.execute(db);
  return result.rows.map(toRecord);
}
