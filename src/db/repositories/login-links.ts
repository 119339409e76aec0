// One-time login links: stored by the hash of their token, consumed by one conditional update.
import type { Kysely } from 'kysely';
import type { LoginLinkRow, Schema } from '../tables.js';

type Db = Kysely<Schema>;

export async function insertLoginLink(
  db: Db,
  link: { tokenHash: string; userId: string; clientId: string; returnTo: string; createdAt: number; expiresAt: number },
): Promise<void> {
  await db
    .insertInto('login_links')
    .values({
      token_hash: link.tokenHash,
      user_id: link.userId,
      client_id: link.clientId,
      return_to: link.returnTo,
      created_at: link.createdAt,
      expires_at: link.expiresAt,
      consumed_at: null,
    })
    .execute();
}

/** Consumes a live link and returns it; undefined when unknown, expired or already used. */
export async function consumeLoginLink(db: Db, tokenHash: string, now: number): Promise<LoginLinkRow | undefined> {
  return db.transaction().execute(async (trx) => {
    const result = await trx
      .updateTable('login_links')
      .set({ consumed_at: now })
      .where('token_hash', '=', tokenHash)
      .where('consumed_at', 'is', null)
      .where('expires_at', '>', now)
      .executeTakeFirst();
    if (result.numUpdatedRows === 0n) return undefined;
    return trx.selectFrom('login_links').selectAll().where('token_hash', '=', tokenHash).executeTakeFirstOrThrow();
  });
}

export async function purgeExpiredLoginLinks(db: Db, now: number): Promise<number> {
  const result = await db.deleteFrom('login_links').where('expires_at', '<=', now).executeTakeFirst();
  return Number(result.numDeletedRows);
}
