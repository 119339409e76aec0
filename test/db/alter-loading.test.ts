// What a read of alters loads for a viewer other than the owner (issue 26, item 6): the fields
// shown to the owner alone (per-server names and avatars, flags) are not read at all, and those
// behind an alter privacy bit are read only from alters that have the bit. Checked on the records
// the repository returns (the view would hide them anyway, so only the load tells): the owner's
// load has every value, another viewer's has the defaults in their place.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alterColumns } from '../../src/db/alter-columns.js';
import { migrateToLatest, openDatabase, type Database } from '../../src/db/database.js';
import { findAlter, findAlters, listAlters } from '../../src/db/repositories/alters.js';
import { findTag, listTags } from '../../src/db/repositories/tags.js';
import { ALTER_DEFAULTS, type AlterRecord } from '../../src/domain/alter.js';
import { AlterPrivacy } from '../../src/domain/privacy-bits.js';
import type { AlterLoadPolicy } from '../../src/domain/privacy.js';
import { DIALECTS, createTestDatabase, type TestDatabase } from '../support/dialects.js';
import { insertSystem } from '../support/migrations.js';

const OWNER: AlterLoadPolicy = { onlyVisible: false, fieldsFor: null, allFields: true };
const OTHER: AlterLoadPolicy = { onlyVisible: true, fieldsFor: null, allFields: false };

const FULL = {
  nameMap: [{ server: '300000000000000001', name: 'Ash here' }],
  avatarUrlMap: { '300000000000000001': 'https://example.com/here.png' },
  flags: 5,
  description: 'a description',
  pronouns: 'they/them',
  avatarUrl: 'https://example.com/a.png',
  webhookAvatarUrl: 'https://example.com/w.png',
  banner: 'https://example.com/b.png',
  color: '#aabbcc',
  proxyTags: [{ id: 'x', prefix: 'a:', suffix: null }],
};

describe.each(DIALECTS)('what a read of alters loads (%s)', (dialect) => {
  let testDatabase: TestDatabase;
  let database: Database;
  let systemId: number;
  let open: number;
  let closed: number;
  let tagId: number;

  beforeAll(async () => {
    testDatabase = await createTestDatabase(dialect);
    database = openDatabase(testDatabase.url);
    await migrateToLatest(database.db);
    systemId = await insertSystem(database.db, '620000000000000001', Date.now());
    const row = (username: string, bits: number) => ({
      ...alterColumns({
        ...ALTER_DEFAULTS,
        ...FULL,
        username,
        displayName: username,
        public: bits,
        messageCount: 0,
        lastMessageAt: null,
        createdAt: Date.now(),
      }),
      system_id: systemId,
    });
    const all = Object.values(AlterPrivacy).reduce((mask, bit) => mask | bit, 0);
    const ids = await database.db.insertInto('alters').values([row('open', all), row('closed', AlterPrivacy.visible)]).returning('id').execute();
    [open, closed] = ids.map((id) => Number(id.id)) as [number, number];
    const tag = await database.db.insertInto('tags').values({ system_id: systemId, name: 'crew', name_key: 'crew', public: 63, created_at: Date.now() }).returning('id').executeTakeFirstOrThrow();
    tagId = Number(tag.id);
    await database.db.insertInto('alter_tags').values([{ alter_id: open, tag_id: tagId }, { alter_id: closed, tag_id: tagId }]).execute();
  });
  afterAll(async () => {
    await database.close();
    await testDatabase.drop();
  });

  const pick = (record: AlterRecord | undefined) => record && Object.fromEntries(Object.keys(FULL).map((key) => [key, record[key as keyof AlterRecord]]));
  const ownerOnlyDefaults = { nameMap: [], avatarUrlMap: {}, flags: 0 };
  const bitDefaults = { description: null, pronouns: null, avatarUrl: null, webhookAvatarUrl: null, banner: null, color: null, proxyTags: [] };

  it('loads every field for the owner', async () => {
    expect(pick(await findAlter(database.db, systemId, closed, OWNER))).toEqual(FULL);
    const page = await listAlters(database.db, systemId, { skip: 0, max: 10 }, OWNER);
    expect(page.map(pick)).toEqual([FULL, FULL]);
  });

  it('loads no owner-only field for another viewer, and a bit’s fields only where the bit is set', async () => {
    const page = await listAlters(database.db, systemId, { skip: 0, max: 10 }, OTHER);
    expect(page.map((record) => record.id)).toEqual([open, closed]);
    expect(page.map(pick)).toEqual([
      { ...FULL, ...ownerOnlyDefaults },
      { ...FULL, ...ownerOnlyDefaults, ...bitDefaults },
    ]);
    expect(pick(await findAlter(database.db, systemId, closed, OTHER))).toEqual({ ...FULL, ...ownerOnlyDefaults, ...bitDefaults });
    const both = await findAlters(database.db, systemId, [open, closed], { ...OTHER, onlyVisible: false });
    expect(both.map(pick).sort((a, b) => String(a?.description).localeCompare(String(b?.description)))).toEqual([
      { ...FULL, ...ownerOnlyDefaults },
      { ...FULL, ...ownerOnlyDefaults, ...bitDefaults },
    ]);
  });

  it('loads a tag’s members in one list, for another viewer only those that show their tags', async () => {
    const ids = (record: { members: Array<{ id: number }> } | undefined) => record?.members.map((member) => member.id);
    expect(ids(await findTag(database.db, systemId, tagId, { onlyVisible: false }))).toEqual([open, closed]);
    expect((await listTags(database.db, systemId, { skip: 0, max: 10 }, { onlyVisible: false })).map(ids)).toEqual([[open, closed]]);
    expect(ids(await findTag(database.db, systemId, tagId, { onlyVisible: true }))).toEqual([open]);
    expect((await listTags(database.db, systemId, { skip: 0, max: 10 }, { onlyVisible: true })).map(ids)).toEqual([[open]]);
  });
});
