// Hosted images: stored once per system under their address, within the system's quota, and
// removed once nothing of their system refers to them (after a grace period for new uploads).
import { PostgresAdapter, sql, type Kysely } from 'kysely';
import { IMAGE_CONTENT_TYPE, IMAGE_QUOTA, imageAddressesIn, UNREFERENCED_IMAGE_GRACE_MS, type ImagePurpose } from '../../domain/images.js';
import { Problem } from '../../domain/problems.js';
import type { Schema } from '../tables.js';

export interface NewImage {
  systemId: number;
  address: string;
  purpose: ImagePurpose;
  width: number;
  height: number;
  data: Buffer;
  now: number;
}

export interface ImageRow {
  address: string;
  purpose: ImagePurpose;
  width: number;
  height: number;
  bytes: number;
  createdAt: number;
}

/**
 * Keeps a processed image; the same image uploaded again by its system is the row already there
 * (the quota counts it once). Past the quota nothing is stored: 409 `image-quota`.
 */
export async function storeImage(db: Kysely<Schema>, image: NewImage): Promise<{ created: boolean }> {
  return db.transaction().execute(async (trx) => {
    // Uploads of one system take turns here (SQLite writes do anyway), so two cannot both fit in
    // the last place of the quota.
    if (trx.getExecutor().adapter instanceof PostgresAdapter) {
      await trx.selectFrom('systems').select('id').where('id', '=', image.systemId).forUpdate().execute();
    }
    const existing = await trx.selectFrom('images').select('address').where('address', '=', image.address).executeTakeFirst();
    if (existing) return { created: false };
    const usage = await trx
      .selectFrom('images')
      .select((eb) => [eb.fn.countAll<number>().as('count'), eb.fn.coalesce(eb.fn.sum<number>('bytes'), sql<number>`0`).as('bytes')])
      .where('system_id', '=', image.systemId)
      .executeTakeFirstOrThrow();
    if (Number(usage.count) + 1 > IMAGE_QUOTA.images || Number(usage.bytes) + image.data.length > IMAGE_QUOTA.bytes) {
      throw new Problem(
        'image-quota',
        `a system keeps at most ${IMAGE_QUOTA.images} images and ${IMAGE_QUOTA.bytes / 1024 / 1024} MiB (this one has ${Number(usage.count)} using ${(Number(usage.bytes) / 1024 / 1024).toFixed(1)} MiB); images no field uses are removed a day after their upload`,
        'file',
      );
    }
    await trx
      .insertInto('images')
      .values({
        address: image.address,
        system_id: image.systemId,
        purpose: image.purpose,
        content_type: IMAGE_CONTENT_TYPE,
        width: image.width,
        height: image.height,
        bytes: image.data.length,
        data: image.data,
        created_at: image.now,
        checked_at: image.now,
      })
      .execute();
    return { created: true };
  });
}

/** The stored bytes at `address`, for serving. */
export async function readImage(db: Kysely<Schema>, address: string): Promise<{ data: Buffer; contentType: string } | undefined> {
  const row = await db.selectFrom('images').select(['data', 'content_type']).where('address', '=', address).executeTakeFirst();
  return row && { data: Buffer.from(row.data), contentType: row.content_type };
}

/** A system's images, newest first, without their bytes. */
export async function listImages(db: Kysely<Schema>, systemId: number): Promise<ImageRow[]> {
  const rows = await db
    .selectFrom('images')
    .select(['address', 'purpose', 'width', 'height', 'bytes', 'created_at'])
    .where('system_id', '=', systemId)
    .orderBy('created_at', 'desc')
    .orderBy('address')
    .execute();
  return rows.map((row) => ({ ...row, purpose: row.purpose as ImagePurpose, createdAt: Number(row.created_at) }));
}

/** Every value of a system's fields that can hold an image URL. */
async function imageFieldValues(db: Kysely<Schema>, systemId: number): Promise<string[]> {
  const [system, alters, tags] = await Promise.all([
    db.selectFrom('systems').select(['avatar', 'banner']).where('id', '=', systemId).executeTakeFirst(),
    db.selectFrom('alters').select(['avatar_url', 'avatar_url_map', 'webhook_avatar_url', 'banner']).where('system_id', '=', systemId).execute(),
    db.selectFrom('tags').select('icon').where('system_id', '=', systemId).execute(),
  ]);
  return [
    system?.avatar,
    system?.banner,
    ...alters.flatMap((alter) => [alter.avatar_url, alter.avatar_url_map, alter.webhook_avatar_url, alter.banner]),
    ...tags.map((tag) => tag.icon),
  ].filter((value): value is string => typeof value === 'string');
}

/**
 * Removes images past their grace period that no field of their system refers to; those still
 * referred to are marked checked, so each run looks first at the images not looked at for longest.
 * Looks at `batch` images at most; how many it removed.
 */
export async function purgeUnreferencedImages(db: Kysely<Schema>, now: number, batch = 500): Promise<number> {
  const candidates = await db
    .selectFrom('images')
    .select(['address', 'system_id'])
    .where('created_at', '<', now - UNREFERENCED_IMAGE_GRACE_MS)
    .orderBy('checked_at')
    .limit(batch)
    .execute();
  const bySystem = new Map<number, string[]>();
  for (const { address, system_id } of candidates) bySystem.set(Number(system_id), [...(bySystem.get(Number(system_id)) ?? []), address]);
  let removed = 0;
  for (const [systemId, addresses] of bySystem) {
    // Read and decided in one transaction: a field set meanwhile on SQLite waits for it.
    removed += await db.transaction().execute(async (trx) => {
      const referenced = imageAddressesIn(await imageFieldValues(trx, systemId));
      const unused = addresses.filter((address) => !referenced.has(address));
      const used = addresses.filter((address) => referenced.has(address));
      if (used.length > 0) await trx.updateTable('images').set({ checked_at: now }).where('address', 'in', used).execute();
      if (unused.length > 0) await trx.deleteFrom('images').where('address', 'in', unused).execute();
      return unused.length;
    });
  }
  return removed;
}
