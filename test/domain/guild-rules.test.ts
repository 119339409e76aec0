// The server's rules (may this be proxied here, where is it logged) and the settings edit, one row
// per rule; each row is named by what it covers, so a failure points at the rule it breaks.
import { describe, expect, it } from 'vitest';
import { Problem } from '../../src/domain/problems.js';
import { EditGuildSettingsBody, MAX_MANAGER_ROLES, applyGuildEdit, defaultGuildSettings, type GuildSettingsDocument } from '../../src/domain/guild.js';
import { carriesDisplayTag, compileGuildRules, logChannelFor, mayProxyHere, noticeKeyFor, type MessagePlace, type ProxyVerdict } from '../../src/domain/guild-rules.js';

const GUILD = '100000000000000001';
const TEXT = '200000000000000001';
const OTHER = '200000000000000002';
const CATEGORY = '200000000000000003';
const THREAD = '200000000000000004';
const FORUM = '200000000000000005';
const POST = '200000000000000006';
const ALICE = '300000000000000001';
const BOB = '300000000000000002';
const ADMIN = '300000000000000009';
const MUTED = '400000000000000001';
const HELPER = '400000000000000002';

const stamp = { changedBy: ADMIN, changedAt: '2026-11-27T12:00:00.000Z' };
const entries = (...ids: string[]) => ids.map((id) => ({ id, ...stamp }));

type Given = { blacklist?: string[]; blocks?: GuildSettingsDocument['blocks']; requireTag?: boolean; logChannel?: string; logIgnored?: string[] };
function settings(given: Given): GuildSettingsDocument {
  return {
    ...defaultGuildSettings(),
    blacklist: entries(...(given.blacklist ?? [])),
    logIgnored: entries(...(given.logIgnored ?? [])),
    blocks: given.blocks ?? [],
    requireTag: { enabled: given.requireTag ?? false, ...stamp },
    logChannel: { channelId: given.logChannel ?? null, ...stamp },
  };
}

const inChannel: MessagePlace = { channelId: TEXT, parentId: null, categoryId: null };
const inCategorised: MessagePlace = { channelId: TEXT, parentId: null, categoryId: CATEGORY };
const inThread: MessagePlace = { channelId: THREAD, parentId: TEXT, categoryId: CATEGORY };
const inForumPost: MessagePlace = { channelId: POST, parentId: FORUM, categoryId: null };
const userBlock = { id: ALICE, kind: 'user' as const, reason: 'spam', ...stamp };
const roleBlock = { id: MUTED, kind: 'role' as const, reason: null, ...stamp };

type Case = {
  rule: string;
  given: Given;
  place?: MessagePlace;
  sender?: { userId: string; roleIds: string[] };
  name?: string;
  tags?: (string | null)[];
  expected: ProxyVerdict;
};

const ok: ProxyVerdict = { allowed: true };
const cases: Case[] = [
  { rule: 'no settings: everything proxies', given: {}, expected: ok },
  // blacklist
  { rule: 'blacklist: the channel itself', given: { blacklist: [TEXT] }, expected: { allowed: false, reason: 'blacklisted', targetId: TEXT } },
  { rule: 'blacklist: another channel leaves this one alone', given: { blacklist: [OTHER] }, expected: ok },
  { rule: 'blacklist: a category covers its channels', given: { blacklist: [CATEGORY] }, place: inCategorised, expected: { allowed: false, reason: 'blacklisted', targetId: CATEGORY } },
  { rule: 'blacklist: a category does not cover a channel outside it', given: { blacklist: [CATEGORY] }, place: inChannel, expected: ok },
  { rule: 'blacklist: a thread follows its parent', given: { blacklist: [TEXT] }, place: inThread, expected: { allowed: false, reason: 'blacklisted', targetId: TEXT } },
  { rule: 'blacklist: a thread follows its parent’s category', given: { blacklist: [CATEGORY] }, place: inThread, expected: { allowed: false, reason: 'blacklisted', targetId: CATEGORY } },
  { rule: 'blacklist: a forum post follows its forum', given: { blacklist: [FORUM] }, place: inForumPost, expected: { allowed: false, reason: 'blacklisted', targetId: FORUM } },
  { rule: 'blacklist: a thread can be blacklisted alone', given: { blacklist: [THREAD] }, place: inThread, expected: { allowed: false, reason: 'blacklisted', targetId: THREAD } },
  { rule: 'blacklist: comes before a block', given: { blacklist: [TEXT], blocks: [userBlock] }, expected: { allowed: false, reason: 'blacklisted', targetId: TEXT } },
  // blocks
  { rule: 'block: the user, with reason and who set it', given: { blocks: [userBlock] }, expected: { allowed: false, reason: 'blocked', block: userBlock } },
  { rule: 'block: another user is not blocked', given: { blocks: [userBlock] }, sender: { userId: BOB, roleIds: [] }, expected: ok },
  { rule: 'block: a role blocks whoever holds it', given: { blocks: [roleBlock] }, sender: { userId: BOB, roleIds: [HELPER, MUTED] }, expected: { allowed: false, reason: 'blocked', block: roleBlock } },
  { rule: 'block: a role the member lacks does nothing', given: { blocks: [roleBlock] }, sender: { userId: BOB, roleIds: [HELPER] }, expected: ok },
  { rule: 'block: a user block wins over a role block', given: { blocks: [roleBlock, userBlock] }, sender: { userId: ALICE, roleIds: [MUTED] }, expected: { allowed: false, reason: 'blocked', block: userBlock } },
  { rule: 'block: comes before the tag requirement', given: { blocks: [userBlock], requireTag: true }, tags: [null], expected: { allowed: false, reason: 'blocked', block: userBlock } },
  // require-tag
  { rule: 'require-tag: off, a name without tag proxies', given: { requireTag: false }, name: 'Kestrel', tags: [null], expected: ok },
  { rule: 'require-tag: the name carries the tag', given: { requireTag: true }, name: 'Kestrel | Flock', tags: ['| Flock'], expected: ok },
  { rule: 'require-tag: no tag set', given: { requireTag: true }, name: 'Kestrel', tags: [null, null], expected: { allowed: false, reason: 'tag-required' } },
  { rule: 'require-tag: a blank tag does not count', given: { requireTag: true }, name: 'Kestrel', tags: ['  '], expected: { allowed: false, reason: 'tag-required' } },
  { rule: 'require-tag: the server’s tag counts', given: { requireTag: true }, name: 'Kestrel [here]', tags: ['[here]', null], expected: ok },
  { rule: 'require-tag: a tag the name does not carry', given: { requireTag: true }, name: 'Kestrel', tags: ['| Flock'], expected: { allowed: false, reason: 'tag-required' } },
  { rule: 'require-tag: the webhook’s defused words still match', given: { requireTag: true }, name: 'Kestrel d\u200biscord fans', tags: ['discord fans'], expected: ok },
];

describe('mayProxyHere', () => {
  it.each(cases)('$rule', ({ given, place, sender, name, tags, expected }) => {
    const verdict = mayProxyHere(compileGuildRules(settings(given)), place ?? inChannel, sender ?? { userId: ALICE, roleIds: [] }, { name: name ?? 'Kestrel', displayTags: tags ?? [] });
    expect(verdict).toEqual(expected);
  });
});

describe('logChannelFor', () => {
  const rows: Array<{ rule: string; given: Given; place: MessagePlace; expected: string | null }> = [
    { rule: 'no log channel: nothing is logged', given: {}, place: inChannel, expected: null },
    { rule: 'a log channel logs', given: { logChannel: OTHER }, place: inChannel, expected: OTHER },
    { rule: 'an ignored channel is not logged', given: { logChannel: OTHER, logIgnored: [TEXT] }, place: inChannel, expected: null },
    { rule: 'an ignored parent covers its threads', given: { logChannel: OTHER, logIgnored: [TEXT] }, place: inThread, expected: null },
    { rule: 'an ignored category covers its channels', given: { logChannel: OTHER, logIgnored: [CATEGORY] }, place: inCategorised, expected: null },
    { rule: 'another ignored channel changes nothing', given: { logChannel: OTHER, logIgnored: [FORUM] }, place: inThread, expected: OTHER },
  ];
  it.each(rows)('$rule', ({ given, place, expected }) => {
    expect(logChannelFor(compileGuildRules(settings(given)), place)).toBe(expected);
  });
});

describe('noticeKeyFor', () => {
  it('keys a blacklist per channel, a thread as its parent; blocks and the tag per server', () => {
    const blacklisted = { allowed: false, reason: 'blacklisted', targetId: TEXT } as const;
    expect(noticeKeyFor(blacklisted, GUILD, inThread)).toBe(noticeKeyFor(blacklisted, GUILD, inCategorised));
    expect(noticeKeyFor(blacklisted, GUILD, inForumPost)).not.toBe(noticeKeyFor(blacklisted, GUILD, inChannel));
    expect(noticeKeyFor({ allowed: false, reason: 'blocked', block: userBlock }, GUILD, inThread)).toBe(noticeKeyFor({ allowed: false, reason: 'blocked', block: roleBlock }, GUILD, inChannel));
    expect(noticeKeyFor({ allowed: false, reason: 'tag-required' }, GUILD, inThread)).toBe(`tag-required:${GUILD}`);
  });
  it('finds a tag only when it is really there', () => {
    expect(carriesDisplayTag('Wren', ['Wr'])).toBe(true);
    expect(carriesDisplayTag('Wren', [''])).toBe(false);
  });
});

describe('applyGuildEdit', () => {
  const AT = new Date('2026-11-27T15:00:00.000Z');
  const edit = (body: unknown) => EditGuildSettingsBody.parse(body);
  const actor = { userId: ADMIN, permission: 'manage-guild' };

  it('changes nothing for {} and for edits that restate what is there', () => {
    const current = settings({ blacklist: [TEXT], requireTag: true });
    expect(applyGuildEdit(current, edit({}), ADMIN, AT)).toEqual({ settings: current, changes: [] });
    const same = applyGuildEdit(
      current,
      edit({ actor, blacklist: { add: [TEXT], remove: [OTHER] }, requireTag: true, logChannel: null, proxyDelayMs: 0 }),
      ADMIN,
      AT,
    );
    expect(same.changes).toEqual([]);
    expect(same.settings).toBe(current);
  });

  it('stamps each changed setting and entry with who and when, and leaves the others as they were', () => {
    const current = settings({ blacklist: [TEXT] });
    const { settings: next, changes } = applyGuildEdit(current, edit({ actor, blacklist: { add: [OTHER] }, proxyDelayMs: 500, blocks: { add: [{ id: MUTED, kind: 'role', reason: ' being loud ' }] } }), BOB, AT);
    expect(next.blacklist).toEqual([{ id: TEXT, ...stamp }, { id: OTHER, changedBy: BOB, changedAt: AT.toISOString() }]);
    expect(next.proxyDelay).toEqual({ milliseconds: 500, changedBy: BOB, changedAt: AT.toISOString() });
    expect(next.blocks).toEqual([{ id: MUTED, kind: 'role', reason: 'being loud', changedBy: BOB, changedAt: AT.toISOString() }]);
    expect(next.requireTag).toEqual(current.requireTag);
    expect(changes).toEqual(['proxyDelayMs 0 → 500', `blacklist +${OTHER}`, `blocks +role:${MUTED} (being loud)`]);
    expect(current.blacklist).toHaveLength(1); // the input is not changed
  });

  it('removes entries and gives a block added again its new reason', () => {
    const current = settings({ blocks: [userBlock, roleBlock], blacklist: [TEXT, OTHER] });
    const { settings: next, changes } = applyGuildEdit(current, edit({ actor, blocks: { add: [{ id: ALICE, kind: 'user', reason: 'other reason' }], remove: [MUTED] }, blacklist: { remove: [TEXT] } }), BOB, AT);
    expect(next.blocks).toEqual([{ id: ALICE, kind: 'user', reason: 'other reason', changedBy: BOB, changedAt: AT.toISOString() }]);
    expect(next.blacklist.map((entry) => entry.id)).toEqual([OTHER]);
    expect(changes).toEqual([`blacklist -${TEXT}`, `blocks -role:${MUTED}`, `blocks +user:${ALICE} (other reason)`]);
  });

  it('refuses to pass a cap, naming the list', () => {
    const full = { ...defaultGuildSettings(), managerRoles: Array.from({ length: MAX_MANAGER_ROLES }, (_, i) => ({ id: `5000000000000000${String(i).padStart(2, '0')}`, ...stamp })) };
    const attempt = () => applyGuildEdit(full, edit({ actor, managerRoles: { add: [HELPER] } }), BOB, AT);
    expect(attempt).toThrow(Problem);
    expect(attempt).toThrow(/managerRoles can have at most 25/);
    // Replacing one (remove and add in one edit) stays within the cap.
    expect(applyGuildEdit(full, edit({ actor, managerRoles: { add: [HELPER], remove: [full.managerRoles[0]?.id ?? ''] } }), BOB, AT).settings.managerRoles).toHaveLength(MAX_MANAGER_ROLES);
  });

  it('validates the body: every bad field at once, unknown keys by name, the actor with any change', () => {
    const result = EditGuildSettingsBody.safeParse({ proxyDelayMs: 3001, blacklist: { add: ['nope'] }, logChannel: 5, colour: 'red' });
    expect(result.success).toBe(false);
    const issues = result.error?.issues.map((issue) => issue.path.join('.') || (issue as { keys?: string[] }).keys?.join(',')) ?? [];
    expect(issues).toEqual(expect.arrayContaining(['proxyDelayMs', 'blacklist.add.0', 'logChannel', 'colour']));
    const noActor = EditGuildSettingsBody.safeParse({ requireTag: true });
    expect(noActor.error?.issues[0]?.path).toEqual(['actor']);
    expect(EditGuildSettingsBody.safeParse({}).success).toBe(true);
    expect(EditGuildSettingsBody.safeParse({ actor, blacklist: { add: [TEXT], remove: [TEXT] } }).success).toBe(false);
    expect(EditGuildSettingsBody.safeParse({ actor: { userId: ADMIN, permission: 'owner' }, requireTag: true }).success).toBe(false);
  });
});
