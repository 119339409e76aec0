// Users are Discord accounts that signed in at least once. Signing in also creates the user's
// system, so a signed-in user always has one (see the API reference).
import type { Kysely } from 'kysely';
import { noteChange } from '../changes/notes.js';
import { userSystemTopic } from '../changes/topics.js';
import { newSystemColumns } from '../system-columns.js';
import type { Schema, UserRow } from '../tables.js';

type Db = Kysely<Schema>;

/** Records a sign-in: creates the user and their system on first sign-in, in one transaction. */
export async function recordSignIn(db: Db, user: { id: string; username: string | null }, now: number): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx
      .insertInto('users')
      .values({ id: user.id, username: user.username, created_at: now, last_sign_in_at: now })
      .onConflict((oc) =>
        oc.column('id').doUpdateSet(user.username === null ? { last_sign_in_at: now } : { username: user.username, last_sign_in_at: now }),
      )
      .execute();
    const owned = await trx.selectFrom('systems').select('id').where('user_id', '=', user.id).executeTakeFirst();
    const subAccount = await trx.selectFrom('system_sub_accounts').select('system_id').where('user_id', '=', user.id).executeTakeFirst();
    if (!owned && !subAccount) {
      await trx.insertInto('systems').values(newSystemColumns(user.id, now))
        .onConflict((oc) => oc.column('user_id').doNothing())
        .execute();
      await noteChange(trx, [userSystemTopic(user.id)]);
    }
  });
}

export async function findUser(db: Db, id: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
}
