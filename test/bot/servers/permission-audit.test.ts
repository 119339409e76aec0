// The permission report of `/server permissions`, as tables: which channels lack what, grouped by
// permission in the listed order, and an embed that stays within Discord's limits however many
// channels lack something.
import { PermissionFlagsBits as P } from 'discord.js';
import { describe, expect, it } from 'vitest';
import { EMBED_LIMITS, NEEDED_PERMISSIONS, auditEmbed, auditPermissions, type ChannelPermissions } from '../../../src/bot/servers/permission-audit.js';

const ALL = NEEDED_PERMISSIONS.reduce((bits, needed) => bits | needed.flag, 0n);
const channel = (channelId: string, permissions: bigint, kind: ChannelPermissions['kind'] = 'text'): ChannelPermissions => ({ channelId, kind, permissions });
const summary = (channels: ChannelPermissions[]) => auditPermissions(channels).map((group) => [group.permission.name, group.channelIds]);

function embedLength(embed: ReturnType<typeof auditEmbed>): number {
  return (embed.title?.length ?? 0) + (embed.description?.length ?? 0) + (embed.fields ?? []).reduce((sum, f) => sum + f.name.length + f.value.length, 0);
}

describe('auditPermissions', () => {
  it.each<[string, ChannelPermissions[], Array<[string, string[]]>]>([
    ['nothing missing', [channel('1', ALL), channel('2', ALL | P.Administrator)], []],
    ['one permission in one channel', [channel('1', ALL & ~P.ManageWebhooks), channel('2', ALL)], [['Manage Webhooks', ['1']]]],
    ['grouped by permission, in the listed order, channels in the order given', [channel('3', ALL & ~P.AttachFiles & ~P.ManageMessages), channel('1', ALL & ~P.ManageMessages)], [['Manage Messages', ['3', '1']], ['Attach Files', ['3']]]],
    ['a channel it cannot see is listed under View Channel alone', [channel('1', 0n), channel('2', ALL & ~P.EmbedLinks)], [['View Channel', ['1']], ['Embed Links', ['2']]]],
    ['a forum takes posts: Send Messages is not needed there, the rest is', [channel('9', ALL & ~P.SendMessages & ~P.SendMessagesInThreads, 'forum')], [['Send Messages in Threads', ['9']]]],
    ['every one of the eight', [channel('1', P.ViewChannel)], NEEDED_PERMISSIONS.filter((n) => n.flag !== P.ViewChannel).map((n) => [n.name, ['1']])],
  ])('%s', (_name, channels, expected) => {
    expect(summary(channels)).toEqual(expected);
  });

  it('names each fix in one sentence', () => {
    for (const needed of NEEDED_PERMISSIONS) {
      expect(needed.fix.endsWith('.')).toBe(true);
      expect(needed.fix.slice(0, -1)).not.toMatch(/[.!?]\s/);
      expect(needed.fix).toContain(needed.name);
    }
  });
});

describe('auditEmbed', () => {
  it('says all is well when nothing is missing', () => {
    expect(auditEmbed([], 12)).toMatchObject({ description: expect.stringContaining('all 12 channels') });
  });

  it('gives one field per missing permission, with the fix and the channels', () => {
    const embed = auditEmbed(auditPermissions([channel('101', ALL & ~P.ManageWebhooks), channel('102', ALL & ~P.ManageWebhooks)]), 2);
    expect(embed.fields).toEqual([{ name: 'Manage Webhooks (2 channels)', value: `${NEEDED_PERMISSIONS[3]?.fix}\n<#101>, <#102>` }]);
  });

  it.each([1, 40, 500, 5000])('stays within Discord’s limits with %i channels lacking everything', (count) => {
    const channels = Array.from({ length: count }, (_, i) => channel(String(100_000_000_000_000_000n + BigInt(i)), P.ViewChannel));
    const embed = auditEmbed(auditPermissions(channels), count);
    expect(embed.fields).toHaveLength(NEEDED_PERMISSIONS.length - 1);
    for (const f of embed.fields ?? []) {
      expect(f.name.length).toBeLessThanOrEqual(EMBED_LIMITS.fieldName);
      expect(f.value.length).toBeLessThanOrEqual(EMBED_LIMITS.fieldValue);
      // Every channel is either named or counted.
      const named = (f.value.match(/<#\d+>/g) ?? []).length;
      const more = Number(/and (\d+) more$/.exec(f.value)?.[1] ?? 0);
      expect(named + more).toBe(count);
    }
    expect(embedLength(embed)).toBeLessThanOrEqual(EMBED_LIMITS.total);
    expect((embed.description ?? '').length).toBeLessThanOrEqual(EMBED_LIMITS.description);
  });
});
