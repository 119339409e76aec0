// Writes of one system racing each other over HTTP: tag membership changes (from the tag's end and
// from the alter's `tagIds`) against deletes of the alter or the tag. On PostgreSQL each takes row
// locks; taken in different orders they deadlocked and answered 500. Every pair must end as if the
// two had run one after the other: no 5xx, and both ends of every membership agree.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Alter } from '../../../src/domain/alter.js';
import type { Tag } from '../../../src/domain/tag.js';
import { signIn, type ApiResponse, type ApiUser } from '../../support/api.js';
import { DIALECTS } from '../../support/dialects.js';
import { startTestServer, type TestServer } from '../../support/server.js';

const PAIRS_PER_KIND = 15;

describe.each(DIALECTS)('racing membership writes and deletes (%s)', (dialect) => {
  let server: TestServer;
  let owner: ApiUser;
  let counter = 0;

  beforeAll(async () => {
    server = await startTestServer(dialect, { RATE_LIMIT_ENABLED: 'false' });
    owner = await signIn(server, '200000000000000951');
  });
  afterAll(async () => server?.stop());

  const createAlter = async () => {
    const response = await owner.call<Alter>('POST', '/v1/users/@me/system/create-alter', { username: `racer${++counter}`, displayName: 'Racer' });
    expect(response.status).toBe(201);
    return response.body.alterId;
  };
  const createTag = async () => {
    const response = await owner.call<Tag>('POST', '/v1/users/@me/system/create-tag', { name: `race ${++counter}` });
    expect(response.status).toBe(201);
    return response.body.tagId;
  };
  const deleteAlter = (id: number) => owner.call('POST', `/v1/users/@me/alters/${id}/delete`);
  const deleteTag = (id: number) => owner.call('POST', `/v1/users/@me/tags/${id}/delete`);
  const addMembers = (tag: number, add: number[]) => owner.call('POST', `/v1/users/@me/tags/${tag}/alters`, { add });
  const removeMembers = (tag: number, remove: number[]) => owner.call('POST', `/v1/users/@me/tags/${tag}/alters`, { remove });
  const setTags = (alter: number, tagIds: number[]) => owner.call('POST', `/v1/users/@me/alters/${alter}/edit`, { tagIds });

  it('never answers 5xx, and leaves every membership the same from both ends', async () => {
    // Each race: what to set up, then the two requests sent at once.
    type Race = () => Promise<ApiResponse[]>;
    const races: Race[] = [];
    const alters: number[] = [];
    const tags: number[] = [];
    for (let index = 0; index < PAIRS_PER_KIND; index++) {
      const [a1, a2, a3, a4, a5] = await Promise.all([createAlter(), createAlter(), createAlter(), createAlter(), createAlter()]);
      const [t1, t2, t3, t4, t5] = await Promise.all([createTag(), createTag(), createTag(), createTag(), createTag()]);
      if (!a1 || !a2 || !a3 || !a4 || !a5 || !t1 || !t2 || !t3 || !t4 || !t5) throw new Error('setup failed');
      alters.push(a1, a2, a3, a4, a5);
      tags.push(t1, t2, t3, t4, t5);
      // Members already in place, so deletes have memberships to remove.
      expect((await addMembers(t2, [a1, a2, a3, a4])).status).toBe(200);
      expect((await addMembers(t5, [a5])).status).toBe(200);
      races.push(
        () => Promise.all([addMembers(t1, [a1, a2]), deleteAlter(a1)]),
        () => Promise.all([addMembers(t1, [a3]), deleteTag(t1)]),
        () => Promise.all([setTags(a2, [t2, t3]), deleteTag(t2)]),
        () => Promise.all([setTags(a4, [t3, t4]), deleteAlter(a4)]),
        () => Promise.all([removeMembers(t5, [a5]), deleteAlter(a5)]),
        () => Promise.all([setTags(a3, [t4, t5]), deleteTag(t4), deleteAlter(a2)]),
      );
    }

    const answers = (await Promise.all(races.map((race) => race()))).flat();
    const statuses = answers.map((answer) => answer.status);
    const failures = answers.filter((answer) => answer.status >= 500).map((answer) => JSON.stringify(answer.body));
    expect(failures, failures.join('\n')).toEqual([]);
    for (const status of statuses) expect([200, 204, 404, 422]).toContain(status);

    // Both ends agree for every alter and tag that is left.
    const liveAlters = new Map<number, number[]>();
    for (const id of alters) {
      const response = await owner.call<{ data: Alter }>('GET', `/v1/users/@me/alters/${id}`);
      expect([200, 404]).toContain(response.status);
      if (response.status === 200) liveAlters.set(id, [...response.body.data.tagIds].sort((a, b) => a - b));
    }
    const liveTags = new Map<number, number[]>();
    for (const id of tags) {
      const response = await owner.call<{ data: Tag }>('GET', `/v1/users/@me/tags/${id}`);
      expect([200, 404]).toContain(response.status);
      if (response.status === 200) liveTags.set(id, [...response.body.data.alterIds].sort((a, b) => a - b));
    }
    for (const [alter, tagIds] of liveAlters) for (const tag of tagIds) expect(liveTags.get(tag), `tag ${tag} of alter ${alter}`).toContain(alter);
    for (const [tag, alterIds] of liveTags) for (const alter of alterIds) expect(liveAlters.get(alter), `alter ${alter} of tag ${tag}`).toContain(tag);
  }, 120_000);
});
