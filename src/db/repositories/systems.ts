// Systems: found by the Discord user who owns them (or one of its sub-accounts), edited in place.
import type { EventActor } from '../../domain/events.js';
import { sql, type Kysely, type RawBuilder, type Transaction } from 'kysely';
import { systemValuesOf, type EditSystemInput, type SystemDetails, type SystemRecord } from '../../domain/system.js';
import { OWNER_SYSTEM_LOAD, type SystemLoadPolicy } from '../../domain/privacy.js';
import { alterVisibleCondition, tagVisibleCondition } from '../privacy-conditions.js';
import { noteChange } from '../changes/notes.js';
import { prepareQuery } from '../prepared.js';
import { systemTopic } from '../changes/topics.js';
import { systemColumns, systemRecord } from '../system-columns.js';
import type { Schema } from '../tables.js';
import { toAutoproxyRecord } from './autoproxy.js';
import { appendEvent } from './events/outbox.js';

type Db = Kysely<Schema>;

const toRecord = systemRecord;

/** The system a Discord user owns, or belongs to as a sub-account. */
export async function findSystemByUser(db: Db, userId: string): Promise<SystemRecord | undefined> {
  const owned = await db.selectFrom('systems').selectAll().where('user_id', '=', userId).executeTakeFirst();
  if (owned) return toRecord(owned);
  const viaSubAccount = await db
    .selectFrom('system_sub_accounts as s')
    .innerJoin('systems', 'systems.id', 's.system_id')
    .selectAll('systems')
    .where('s.user_id', '=', userId)
    .executeTakeFirst();
  return viaSubAccount ? toRecord(viaSubAccount) : undefined;
}

/**
 * The system `userId` owns or belongs to (owned first, as in findSystemByUser) and whether it is
 * also the reader's own system by the same rule, in one query: the /v1 request path's one lookup.
 * `readerUserId` is null for a client acting as itself, which owns no system. Each "system of a
 * user" is two indexed scalar lookups (systems.user_id, the sub-account's primary key), so the row
 * itself is found by its primary key.
 */
export async function findSystemForReader(
  db: Db,
  userId: string,
  readerUserId: string | null,
): Promise<{ system: SystemRecord; readerOwns: boolean } | undefined> {
  const query = readerUserId === userId ? systemForReader.own : readerUserId === null ? systemForReader.client : systemForReader.other;
  const [row] = await query(db, { userId, readerUserId: readerUserId ?? '' });
  if (!row) return undefined;
  const { reader_owns: owns, ...system } = row;
  return { system: toRecord(system), readerOwns: Number(owns) === 1 };
}

const systemIdOf = (user: string) =>
  sql<number | null>`coalesce((select owned.id from systems owned where owned.user_id = ${user}),
    (select sub.system_id from system_sub_accounts sub where sub.user_id = ${user}))`;

/** findSystemForReader's three shapes (the reader is the user, a client, or someone else), prepared once: it runs after every write to a system. */
function systemForReaderQuery(readerOwns: (readerUserId: string) => RawBuilder<number>) {
  return prepareQuery((db, p: { userId: string; readerUserId: string }) =>
    db
      .selectFrom('systems')
      .selectAll('systems')
      .select(readerOwns(p.readerUserId).as('reader_owns'))
      .where('systems.id', '=', systemIdOf(p.userId)),
  );
}

const systemForReader = {
  own: systemForReaderQuery(() => sql<number>`${sql.lit(1)}`),
  client: systemForReaderQuery(() => sql<number>`${sql.lit(0)}`),
  other: systemForReaderQuery((reader) => sql<number>`case when systems.id = ${systemIdOf(reader)} then 1 else 0 end`),
};

/** The id of the system `userId` owns or belongs to (owned first). */
export async function findSystemIdOfUser(db: Db, userId: string): Promise<number | undefined> {
  const row = await db
    .selectNoFrom(
      sql<number | null>`coalesce((select owned.id from systems owned where owned.user_id = ${userId}),
        (select sub.system_id from system_sub_accounts sub where sub.user_id = ${userId}))`.as('id'),
    )
    .executeTakeFirst();
  return row?.id === null || row?.id === undefined ? undefined : Number(row.id);
}

const selectRevision = prepareQuery((db, p: { id: number }) => db.selectFrom('systems').select('revision').where('id', '=', p.id));

/** The system's revision (SystemLookup.revisionOf); undefined once the system is gone. */
export async function findSystemRevision(db: Db, id: number): Promise<number | undefined> {
  const [row] = await selectRevision(db, { id });
  return row ? Number(row.revision) : undefined;
}

export async function findSystemById(db: Db | Transaction<Schema>, id: number): Promise<SystemRecord | undefined> {
  const row = await db.selectFrom('systems').selectAll().where('id', '=', id).executeTakeFirst();
  return row ? toRecord(row) : undefined;
}

/** The lists a full system read shows, loaded as the privacy policy allows. */
export async function loadSystemDetails(db: Db | Transaction<Schema>, systemId: number, policy: SystemLoadPolicy): Promise<SystemDetails> {
  const alterIds =
    policy.alterIds === 'none'
      ? []
      : await db
          .selectFrom('alters')
          .select('id')
          .where('system_id', '=', systemId)
          .$if(policy.alterIds === 'visible', (q) => q.where(alterVisibleCondition()))
          .orderBy('id')
          .execute();
  const tagIds =
    policy.tagIds === 'none'
      ? []
      : await db
          .selectFrom('tags')
          .select('id')
          .where('system_id', '=', systemId)
          .$if(policy.tagIds === 'visible', (q) => q.where(tagVisibleCondition()))
          .orderBy('id')
          .execute();
  const autoproxy = policy.ownerDetails
    ? await db.selectFrom('autoproxy').selectAll().where('system_id', '=', systemId).orderBy('scope').execute()
    : [];
  const subAccounts = policy.subAccounts
    ? await db.selectFrom('system_sub_accounts').select('user_id').where('system_id', '=', systemId).orderBy('user_id').execute()
    : [];
  return {
    alterIds: alterIds.map((row) => row.id),
    tagIds: tagIds.map((row) => row.id),
    autoproxy: autoproxy.map(toAutoproxyRecord),
    subAccounts: subAccounts.map((row) => row.user_id),
  };
}

/** Applies a partial edit: only the keys present change. Returns the updated system. */
export async function editSystem(db: Db, systemId: number, input: EditSystemInput, actor: EventActor): Promise<SystemRecord | undefined> {
  const update = systemColumns(systemValuesOf(input));
  if (Object.keys(update).length === 0) return findSystemById(db, systemId);
  // The edit and its event (with the owner's view of the whole system) in one transaction.
  const updated = await db.transaction().execute(async (trx) => {
    await trx.updateTable('systems').set({ ...update, revision: sql`revision + 1` }).where('id', '=', systemId).execute();
    await noteChange(trx, [systemTopic(systemId)]);
    const system = await findSystemById(trx, systemId);
    if (!system) return undefined;
    const details = await loadSystemDetails(trx, systemId, OWNER_SYSTEM_LOAD);
    await appendEvent(trx, systemId, actor, { type: 'system.updated', system, details });
    return system;
  });
  return updated;
}
