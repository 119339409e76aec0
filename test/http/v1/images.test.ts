// Hosted images over HTTP on every dialect: uploads checked by their bytes, hostile files refused
// (wrong type, truncated, bombs, too large) and nothing stored for them, metadata stripped, sizes
// scaled to their purpose, animations kept, one copy per system, the quota, serving with immutable
// caching and ETags, the owner's list, and the purge of images nothing refers to.
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { purgeUnreferencedImages, storeImage } from '../../../src/db/repositories/images.js';
import { IMAGE_QUOTA, UNREFERENCED_IMAGE_GRACE_MS } from '../../../src/domain/images.js';
import { errorTypes, multipartFile, request, signIn, type ApiResponse, type ApiUser } from '../../support/api.js';
import { DIALECTS } from '../../support/dialects.js';
import { snapshotDatabase } from '../../support/snapshot.js';
import { startTestServer, type TestServer } from '../../support/server.js';

const OWNER = '330000000000000001';
const OTHER = '330000000000000002';
const NARROW = '330000000000000003';

interface Uploaded {
  data: { url: string; width: number; height: number; bytes: number };
}

const solid = (width: number, height: number, background = '#336699') => sharp({ create: { width, height, channels: 3, background } });

/** A JPEG as a phone writes one: with a location in its EXIF. */
async function photoWithLocation(): Promise<Buffer> {
  return solid(1600, 1200, '#aa3300')
    .jpeg()
    .withExif({ IFD0: { Make: 'PhoneCo', Model: 'P1' }, IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '51/1 30/1 0/1', GPSLongitudeRef: 'W', GPSLongitude: '0/1 7/1 0/1' } })
    .toBuffer();
}

async function animatedGif(): Promise<Buffer> {
  const frame = (colour: string) => sharp({ create: { width: 64, height: 64, channels: 4, background: colour } }).png().toBuffer();
  return sharp([await frame('#ff0000'), await frame('#00ff00'), await frame('#0000ff')], { join: { animated: true } })
    .gif({ delay: 100, loop: 0 })
    .toBuffer();
}

describe.each(DIALECTS)('hosted images (%s)', (dialect) => {
  let server: TestServer;
  let owner: ApiUser;
  let other: ApiUser;
  let narrow: ApiUser;

  beforeAll(async () => {
    server = await startTestServer(dialect);
    [owner, other, narrow] = await Promise.all([
      signIn(server, OWNER),
      signIn(server, OTHER),
      signIn(server, NARROW, { scope: 'openid alters:read system:read' }),
    ]);
  });
  afterAll(async () => server?.stop());

  async function upload(
    user: ApiUser,
    file: Buffer | string,
    options: { purpose?: string; part?: string; path?: string; type?: string } = {},
  ): Promise<ApiResponse<Uploaded>> {
    const form = new FormData();
    form.append(options.part ?? 'file', new Blob([file], { type: options.type ?? 'application/octet-stream' }), 'upload.bin');
    const query = options.purpose ? `?purpose=${options.purpose}` : '';
    const response = await fetch(`${server.url}/v1/users/${options.path ?? '@me'}/images${query}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${user.token}` },
      body: form,
    });
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: (text ? JSON.parse(text) : undefined) as Uploaded };
  }

  const problem = (response: ApiResponse<unknown>) => ({ status: response.status, types: errorTypes(response) });

  it('takes a photo, turns it into a WebP of its purpose’s size with no metadata, and serves it for a year', async () => {
    const photo = await photoWithLocation();
    expect((await sharp(photo).metadata()).exif).toBeDefined();
    const avatar = await upload(owner, photo);
    expect(avatar.status).toBe(201);
    expect(avatar.body.data).toMatchObject({ width: 1024, height: 768 });
    expect(avatar.body.data.url).toMatch(new RegExp(`^${server.url}/images/[A-Za-z0-9_-]{43}\\.webp$`));

    const served = await fetch(avatar.body.data.url);
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('image/webp');
    expect(served.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const bytes = Buffer.from(await served.arrayBuffer());
    expect(bytes.length).toBe(avatar.body.data.bytes);
    const stored = await sharp(bytes).metadata();
    expect(stored).toMatchObject({ format: 'webp', width: 1024, height: 768 });
    expect(stored.exif).toBeUndefined();
    expect(bytes.includes(Buffer.from('PhoneCo'))).toBe(false);

    const etag = served.headers.get('etag') ?? '';
    const again = await fetch(avatar.body.data.url, { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);

    const banner = await upload(owner, await solid(4000, 1000).png().toBuffer(), { purpose: 'banner' });
    expect(banner.body.data).toMatchObject({ width: 2048, height: 512 });
    const small = await upload(owner, await solid(300, 200).webp().toBuffer());
    expect(small.body.data).toMatchObject({ width: 300, height: 200 });
  });

  it('keeps an animated GIF animated', async () => {
    const uploaded = await upload(owner, await animatedGif());
    expect(uploaded.status).toBe(201);
    const served = Buffer.from(await (await fetch(uploaded.body.data.url)).arrayBuffer());
    expect(await sharp(served, { animated: true }).metadata()).toMatchObject({ format: 'webp', pages: 3, width: 64 });
  });

  it('stores an image once per system: the same upload answers the same URL', async () => {
    const png = await solid(200, 200, '#123456').png().toBuffer();
    const first = await upload(owner, png);
    const second = await upload(owner, png);
    expect([first.status, second.status]).toEqual([201, 200]);
    expect(second.body.data.url).toBe(first.body.data.url);
    // Another system's copy has an address of its own: addresses say nothing across systems.
    const theirs = await upload(other, png);
    expect(theirs.status).toBe(201);
    expect(theirs.body.data.url).not.toBe(first.body.data.url);
  });

  it('refuses what is not a whole image of an accepted kind, storing nothing', async () => {
    const before = await snapshotDatabase(server.database.db);
    const png = await solid(600, 400).png().toBuffer();
    const bomb = await sharp({ create: { width: 10_000, height: 5_000, channels: 3, background: '#000' } }).png({ compressionLevel: 9 }).toBuffer();
    const svg = '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>alert(1)</script></svg>';
    expect(problem(await upload(owner, 'just some text'))).toEqual({ status: 415, types: ['unsupported-media-type'] });
    // The declared type and a name say nothing: the bytes decide.
    expect(problem(await upload(owner, svg, { type: 'image/png' }))).toEqual({ status: 415, types: ['unsupported-media-type'] });
    expect(problem(await upload(owner, await solid(10, 10).tiff().toBuffer()))).toEqual({ status: 415, types: ['unsupported-media-type'] });
    expect(problem(await upload(owner, png.subarray(0, Math.floor(png.length / 2))))).toEqual({ status: 422, types: ['invalid-image'] });
    expect(bomb.length).toBeLessThan(1024 * 1024);
    const bombed = await upload(owner, bomb);
    expect(problem(bombed)).toEqual({ status: 422, types: ['invalid-image'] });
    expect(JSON.stringify(bombed.body)).toContain('40 megapixels');
    expect(problem(await upload(owner, Buffer.alloc(8 * 1024 * 1024 + 1, 7)))).toEqual({ status: 413, types: ['body-too-large'] });
    expect(problem(await upload(owner, png, { part: 'image' }))).toEqual({ status: 400, types: ['validation'] });
    expect(problem(await upload(owner, png, { purpose: 'poster' }))).toEqual({ status: 400, types: ['validation'] });
    const json = await owner.call('POST', '/v1/users/@me/images', { file: 'x' });
    expect(problem(json)).toEqual({ status: 415, types: ['unsupported-media-type'] });
    expect((await snapshotDatabase(server.database.db)).digest).toBe(before.digest);
  });

  it('needs a token with either write scope and the caller’s own system; lists images for the owner alone', async () => {
    const png = await solid(50, 50, '#010203').png().toBuffer();
    const body = multipartFile('file', png);
    expect(problem(await request(server, 'POST', '/v1/users/@me/images', body))).toEqual({ status: 401, types: ['no-access-token'] });
    expect(problem(await request(server, 'POST', '/v1/users/@me/images', { ...body, token: 'not-a-real-token-at-all-0123456789' }))).toEqual({ status: 401, types: ['invalid-auth'] });
    expect(problem(await upload(narrow, png))).toEqual({ status: 403, types: ['invalid-scopes'] });
    for (const [scope, colour] of [['alters:write', '#ff0000'], ['system:write', '#00ff00']] as const) {
      const writer = await signIn(server, '330000000000000004', { scope: `openid ${scope}` });
      expect((await upload(writer, await solid(50, 50, colour).png().toBuffer())).status, scope).toBe(201);
    }
    expect(problem(await upload(other, png, { path: OWNER }))).toEqual({ status: 403, types: ['not-matching-oauth'] });

    const listed = await owner.call<{ data: Array<{ url: string; purpose: string; bytes: number }> }>('GET', '/v1/users/@me/images');
    expect(listed.status).toBe(200);
    expect(listed.body.data.length).toBeGreaterThanOrEqual(5);
    expect(listed.body.data.map((image) => image.purpose)).toContain('banner');
    expect(problem(await other.call('GET', `/v1/users/${OWNER}/images`))).toEqual({ status: 403, types: ['not-matching-oauth'] });
    expect((await narrow.call('GET', '/v1/users/@me/images')).status).toBe(200);
  });

  it('refuses a Discord attachment link in an image field with 422, saying to upload the image', async () => {
    for (const link of [
      'https://cdn.discordapp.com/attachments/1/2/avatar.png?ex=1&is=2&hm=3',
      'https://media.discordapp.net/attachments/1/2/avatar.png',
    ]) {
      const refused = await owner.call('POST', '/v1/users/@me/system/edit', { systemAvatar: link });
      expect(problem(refused)).toEqual({ status: 422, types: ['expiring-image-link'] });
      expect(JSON.stringify(refused.body)).toContain('upload the image');
    }
    // Discord's own lasting images (an emoji, an avatar) are links like any other.
    expect((await owner.call('POST', '/v1/users/@me/system/edit', { systemAvatar: 'https://cdn.discordapp.com/emojis/1.png' })).status).toBe(200);
  });

  it('serves 404 for an address it does not hold, and for anything that is not an address', async () => {
    for (const path of [`/images/${'A'.repeat(43)}.webp`, '/images/..%2Fsecret', '/images/x.webp']) {
      const response = await fetch(`${server.url}${path}`);
      expect(response.status, path).toBe(404);
      expect(response.headers.get('cache-control')).toBe('no-store');
    }
  });

  it('refuses an upload past the quota with 409 image-quota', async () => {
    const user = await signIn(server, '330000000000000009');
    const { id: systemId } = await server.database.db.selectFrom('systems').select('id').where('user_id', '=', user.userId).executeTakeFirstOrThrow();
    // The quota's images, stored directly: uploading 200 real ones would only test the same path 200 times.
    for (let i = 0; i < IMAGE_QUOTA.images; i++) {
      await storeImage(server.database.db, { systemId: Number(systemId), address: `q${String(i).padStart(42, '0')}`, purpose: 'avatar', width: 1, height: 1, data: Buffer.from([i % 256]), now: Date.now() });
    }
    const refused = await upload(user, await solid(20, 20).png().toBuffer());
    expect(problem(refused)).toEqual({ status: 409, types: ['image-quota'] });
  });

  it('removes images nothing refers to once their day is over, keeping those a field uses', async () => {
    const user = await signIn(server, '330000000000000010');
    const [used, perServer, unused, fresh] = await Promise.all(
      ['#111111', '#222222', '#333333', '#444444'].map(async (colour) => (await upload(user, await solid(30, 30, colour).png().toBuffer())).body.data.url),
    );
    const created = await user.call<{ data: { alterId: number } } | { alterId: number }>('POST', '/v1/users/@me/system/create-alter', {
      username: 'ash',
      displayName: 'Ash',
      avatarUrl: used,
      avatarUrlMap: { '120000000000000001': perServer },
    });
    expect(created.status).toBe(201);
    const addresses = [used, perServer, unused, fresh].map((url) => /\/images\/(.+)\.webp$/.exec(url ?? '')?.[1] ?? '');
    const db = server.database.db;
    const old = Date.now() - UNREFERENCED_IMAGE_GRACE_MS - 60_000;
    await db.updateTable('images').set({ created_at: old, checked_at: old }).where('address', 'in', addresses.slice(0, 3)).execute();

    expect(await purgeUnreferencedImages(db, Date.now())).toBe(1);
    const left = (await db.selectFrom('images').select('address').where('address', 'in', addresses).execute()).map((row) => row.address).sort();
    expect(left).toEqual([addresses[0], addresses[1], addresses[3]].sort());
    expect((await fetch(unused ?? '')).status).toBe(404);
    expect((await fetch(used ?? '')).status).toBe(200);
  });
});
