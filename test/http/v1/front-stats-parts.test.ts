// Front statistics in parts (GET /front/stats?boundaries=…): one request answers a period cut at
// the caller's instants, and each part must be exactly what a call for that part alone answers,
// for the owner and for another viewer (hidden alters as one unnamed row), with a tag and with
// primary=true; the period's own figures stay those of the plain call. Days in a time zone off
// UTC (the summary serves none of them whole), UTC days (served whole) and odd instants. A bad
// list is a 400 naming `boundaries`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FrontStats } from '../../../src/domain/front-stats.js';
import { errorFields, errorTypes, signIn, type ApiUser } from '../../support/api.js';
import { DIALECTS } from '../../support/dialects.js';
import { startTestServer, type TestServer } from '../../support/server.js';

const H = 3_600_000;
const DAY = 24 * H;

describe.each(DIALECTS)('front statistics in parts (%s)', (dialect) => {
  let server: TestServer;
  let owner: ApiUser;
  let other: ApiUser;
  let tagId: number;
  /** The period asked about: ten days up to an hour ago, whole hours (so `to` is never now). */
  const to = Math.floor(Date.now() / H) * H - H;
  const from = to - 10 * DAY;
  const iso = (at: number) => new Date(at).toISOString();

  beforeAll(async () => {
    server = await startTestServer(dialect);
    owner = await signIn(server, '200000000000003201');
    other = await signIn(server, '200000000000003202', { client: owner.client });
    const ids: number[] = [];
    for (const name of ['one', 'two', 'three', 'hidden']) {
      const created = await owner.call<{ alterId: number }>('POST', '/v1/users/@me/system/create-alter', { username: name, displayName: name.toUpperCase() });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      ids.push(created.body.alterId);
    }
    const [one, two, three, hidden] = ids as [number, number, number, number];
    expect((await owner.call('POST', '/v1/users/@me/system/edit-alters-privacy', { alterIds: [one, two, three], public: 1 | 128 })).status).toBe(200);
    // The system shows its alters and tags to others; `hidden` stays private.
    expect((await owner.call('POST', '/v1/users/@me/system/edit', { public: 64 | 128 })).status).toBe(200);
    const tag = await owner.call<{ tagId: number }>('POST', '/v1/users/@me/system/create-tag', { name: 'Crew', public: 1 | 32 });
    tagId = tag.body.tagId;
    const added = await owner.call('POST', `/v1/users/@me/tags/${tagId}/alters`, { add: [two, hidden] });
    expect(added.status, JSON.stringify(added.body)).toBe(200);
    // Switches from a day before the period to its end, every 5 to 17 hours, co-fronts, hidden
    // alters and switch-outs among them; the last one still fronts.
    const fronts = [[one], [two, one], [hidden, three], [], [three], [hidden], [two], [one, hidden, two], [three, two], []];
    let at = from - DAY + 2 * H + 123;
    for (let k = 0; at < to; k += 1) {
      const response = await owner.call('POST', '/v1/users/@me/front', { alters: fronts[k % fronts.length], timestamp: iso(at) });
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      at += (5 + ((k * 7) % 13)) * H + 60_001 * (k % 3);
    }
  });
  afterAll(async () => server?.stop());

  const stats = async (user: ApiUser, query: string) => {
    const response = await user.call<{ data: FrontStats }>('GET', `/v1/users/${owner.userId}/front/stats?${query}`);
    expect(response.status, `${query}: ${JSON.stringify(response.body)}`).toBe(200);
    return response.body.data;
  };
  const period = (start: number, end: number) => `from=${encodeURIComponent(iso(start))}&to=${encodeURIComponent(iso(end))}`;
  /** Midnights of a time zone `hours` from UTC within the period. */
  const midnights = (hours: number) => {
    const shift = hours * H;
    const cuts: number[] = [];
    for (let cut = Math.ceil((from + shift) / DAY) * DAY - shift; cut < to; cut += DAY) if (cut > from) cuts.push(cut);
    return cuts;
  };

  const cutSets: Array<[string, number[]]> = [
    ['days 3.5 hours behind UTC (St John’s)', midnights(-3.5)],
    ['UTC days', midnights(0)],
    ['weeks and odd instants', [from + 1, from + 7 * DAY - 3.5 * H, from + 7 * DAY + 17, to - 1]],
  ];
  const viewers = () => [
    ['the owner', owner],
    ['another user', other],
  ] as const;

  it.each(cutSets)('answers %s, each part as a call for it alone, for every viewer and filter', async (_name, cuts) => {
    const boundaries = `boundaries=${encodeURIComponent(cuts.map(iso).join(','))}`;
    for (const [who, viewer] of viewers()) {
      for (const filter of ['', '&primary=true', `&tag=${tagId}`]) {
        const answer = await stats(viewer, `${period(from, to)}${filter}&${boundaries}`);
        const { parts, ...whole } = answer;
        expect(whole, `${who} ${filter}`).toEqual(await stats(viewer, `${period(from, to)}${filter}`));
        const bounds = [from, ...cuts, to];
        expect(parts).toHaveLength(bounds.length - 1);
        for (const [k, part] of (parts ?? []).entries()) {
          const alone = await stats(viewer, `${period(bounds[k] as number, bounds[k + 1] as number)}${filter}`);
          expect(part, `${who} ${filter} part ${k}`).toEqual(alone);
        }
        // The stranger sees the hidden alter's time as one unnamed row (with the tag, not at all: its membership is hidden too).
        if (viewer === other && !filter.includes('tag')) expect(JSON.stringify(answer)).toContain('"alterId":null');
      }
    }
  });

  it('answers one part for an empty list, and parts before the first switch as a call would (from = to)', async () => {
    const whole = await stats(owner, period(from, to));
    expect(await stats(owner, `${period(from, to)}&boundaries=`)).toEqual({ ...whole, parts: [whole] });
    const early = from - 30 * DAY;
    const first = from - DAY + 2 * H + 123;
    const answer = await stats(owner, `${period(early, to)}&boundaries=${encodeURIComponent([early + DAY, first - H].map(iso).join(','))}`);
    expect(answer.from).toBe(iso(first));
    const nothing = (at: number) => ({ from: iso(at), to: iso(at), alters: [], nobody: { seconds: 0, share: 0 } });
    expect(answer.parts).toEqual([nothing(early + DAY), nothing(first - H), await stats(owner, period(first - H, to))]);
  });

  it('answers the parts after now as empty (a caller whose clock runs ahead), and still refuses one past the to asked for', async () => {
    const now = Date.now();
    const askedTo = now + 2 * DAY;
    const cuts = [now - DAY, now + H, now + DAY];
    const answer = await stats(owner, `${period(now - 2 * DAY, askedTo)}&boundaries=${encodeURIComponent(cuts.map(iso).join(','))}`);
    const end = answer.to;
    expect(Date.parse(end)).toBeLessThan(now + H);
    expect(answer.parts?.map((part) => [part.from, part.to])).toEqual([
      [iso(now - 2 * DAY), iso(now - DAY)],
      [iso(now - DAY), end],
      [end, end],
      [end, end],
    ]);
    for (const empty of answer.parts?.slice(2) ?? []) expect(empty).toEqual({ from: end, to: end, alters: [], nobody: { seconds: 0, share: 0 } });
    const past = await owner.call('GET', `/v1/users/@me/front/stats?${period(now - 2 * DAY, askedTo)}&boundaries=${encodeURIComponent(iso(askedTo + H))}`);
    expect({ status: past.status, fields: errorFields(past) }).toEqual({ status: 400, fields: ['boundaries'] });
  });

  it.each([
    ['unsorted', (cuts: number[]) => [cuts[1], cuts[0]].map((at) => iso(at as number)).join(',')],
    ['a repeated instant', (cuts: number[]) => [cuts[0], cuts[0]].map((at) => iso(at as number)).join(',')],
    ['the period’s start', () => iso(from)],
    ['the period’s end', () => iso(to)],
    ['an instant outside the period', () => iso(to + H)],
    ['an unparsable instant', (cuts: number[]) => `${iso(cuts[0] as number)},yesterday`],
    ['an instant without an offset', () => iso(from + DAY).replace('Z', '')],
    ['an empty item', (cuts: number[]) => `${iso(cuts[0] as number)},`],
    ['400 instants (401 parts)', () => Array.from({ length: 400 }, (_, k) => iso(from + (k + 1) * 1000)).join(',')],
  ])('refuses %s with 400 naming boundaries', async (_name, list) => {
    const cuts = midnights(0);
    const response = await owner.call('GET', `/v1/users/@me/front/stats?${period(from, to)}&boundaries=${encodeURIComponent(list(cuts))}`);
    expect({ status: response.status, types: errorTypes(response), fields: errorFields(response) }).toEqual({ status: 400, types: ['validation'], fields: ['boundaries'] });
  });

  it('takes 399 instants (a year of days and more), and refuses the parameter given twice', async () => {
    const cuts = Array.from({ length: 399 }, (_, k) => from + (k + 1) * 1000);
    const answer = await stats(owner, `${period(from, to)}&boundaries=${encodeURIComponent(cuts.map(iso).join(','))}`);
    expect(answer.parts).toHaveLength(400);
    const twice = await owner.call('GET', `/v1/users/@me/front/stats?${period(from, to)}&boundaries=${encodeURIComponent(iso(from + DAY))}&boundaries=${encodeURIComponent(iso(from + 2 * DAY))}`);
    expect({ status: twice.status, types: errorTypes(twice) }).toEqual({ status: 400, types: ['validation'] });
  });
});
