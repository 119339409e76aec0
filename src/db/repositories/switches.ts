// The front as a list of switches, never overwritten: each switch names the alters fronting from
// then on (position 0 first). "Current" is the newest switch; each client's own newest switch is
// what it last pushed.
import { sql, type Kysely } from 'kysely';
import type { FrontRecord } from '../../domain/front.js';
import { ALTER_VISIBLE_BIT } from '../../domain/privacy.js';
import type { Schema } from '../tables.js';
import { touchSystem } from './systems.js';

type Db = Kysely<Schema>;

/**
 * Records that `clientId` switched the alter in. The member row is an INSERT … SELECT, so the
 * alter is checked to belong to the system in the statement that writes; when it does not, the
 * transaction is rolled back and the answer is false.
 */
export async function pushFront(db: Db, systemId: number, alterId: number, clientId: string, now: number): Promise<boolean> {
  const notInSystem = new Error('alter not in system');
  try {
    await db.transaction().execute(async (trx) => {
      const created = await trx
        .insertInto('switches')
        .values({ system_id: systemId, client_id: clientId, switched_at: now })
        .returning('id')
        .executeTakeFirstOrThrow();
      const result = await trx
        .insertInto('switch_members')
        .columns(['switch_id', 'alter_id', 'position'])
        .expression(
          trx
            .selectFrom('alters')
            .select([sql.val(created.id).as('switch_id'), 'id', sql.lit(0).as('position')])
            .where('system_id', '=', systemId)
            .where('id', '=', alterId),
        )
        .executeTakeFirst();
      if (Number(result.numInsertedOrUpdatedRows ?? 0n) === 0) throw notInSystem;
      // "front" autoproxy speaks as the newest switch: the proxy profile changed.
      await touchSystem(trx, systemId);
    });
    return true;
  } catch (error) {
    if (error === notInSystem) return false;
    throw error;
  }
}

/**
 * The alter each "front" source last pushed: the newest push of all (`latest`) and, for the given
 * clients (autoproxy entries that follow one integration), each one's newest push.
 */
export async function latestPushes(db: Db, systemId: number, clients: string[]): Promise<{ latest: number | null; byClient: Record<string, number> }> {
  const primaryOf = (switches: ReturnType<typeof newestSwitch>) =>
    switches
      .leftJoin('switch_members as m', (join) => join.onRef('m.switch_id', '=', 's.id').on('m.position', '=', 0))
      .select('m.alter_id')
      .executeTakeFirst();
  const newest = await primaryOf(newestSwitch(db, systemId));
  const byClient: Record<string, number> = {};
  for (const client of clients) {
    const row = await primaryOf(newestSwitch(db, systemId).where('s.client_id', '=', client));
    if (row?.alter_id != null) byClient[client] = Number(row.alter_id);
  }
  return { latest: newest?.alter_id != null ? Number(newest.alter_id) : null, byClient };
}

const newestSwitch = (db: Db, systemId: number) =>
  db.selectFrom('switches as s').where('s.system_id', '=', systemId).orderBy('s.switched_at', 'desc').orderBy('s.id', 'desc').limit(1);

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
    select f.id, f.system_id, m.alter_id, f.client_id, c.name as client_name, f.switched_at as pushed_at from (
      select id, client_id, row_number() over (partition by client_id order by switched_at desc, id desc) as position
      from switches
      where system_id = ${systemId}
    ) latest
    join switches f on f.id = latest.id
    join switch_members m on m.switch_id = f.id and m.position = 0
    join alters a on a.id = m.alter_id
    left join oauth_clients c on c.id = f.client_id
    where latest.position = 1 ${visibleCondition(onlyVisible)}
    order by f.switched_at desc, f.id desc`.execute(db);
  return result.rows.map(toRecord);
}

/** Every push, newest first, one page at a time. */
export async function frontHistory(db: Db, systemId: number, page: { skip: number; max: number }, onlyVisible: boolean): Promise<FrontRecord[]> {
  const result = await sql<FrontRow>`
    select f.id, f.system_id, m.alter_id, f.client_id, c.name as client_name, f.switched_at as pushed_at
    from switches f
    join switch_members m on m.switch_id = f.id and m.position = 0
    join alters a on a.id = m.alter_id
    left join oauth_clients c on c.id = f.client_id
    where f.system_id = ${systemId} ${visibleCondition(onlyVisible)}
    order by f.switched_at desc, f.id desc
    limit ${page.max} offset ${page.skip}`.execute(db);
  return result.rows.map(toRecord);
}
