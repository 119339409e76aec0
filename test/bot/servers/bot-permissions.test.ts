// The permission report's adapter, through the real bot's discord.js cache and the fake Discord:
// the bot's permissions per channel come from real role and channel overwrites (a category's too,
// for the channels synced to it), and the report names exactly the channels and permissions the
// fake Discord would refuse.
import { PermissionFlagsBits } from 'discord.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { botChannelPermissions } from '../../../src/bot/servers/bot-permissions.js';
import { auditEmbed, auditPermissions } from '../../../src/bot/servers/permission-audit.js';
import { startBotHarness, type BotHarness } from '../../support/bot.js';
import { Permission } from '../../support/fake-discord.js';

/** Polls `probe` until it holds: discord.js updates its cache after the fake's dispatch, on its own time. */
async function until(probe: () => boolean | undefined, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('the bot’s permissions per channel, for /server permissions', () => {
  let h: BotHarness;
  beforeAll(async () => {
    h = await startBotHarness();
  }, 60_000);
  afterAll(async () => h?.stop());

  it('computes them from the real overwrites and reports what is missing, grouped, with the fix', async () => {
    const fake = h.fake;
    const everyone = fake.guild.id;
    const category = fake.addChannel({ name: 'Quiet', type: 4, overwrites: [{ id: fake.botRoleId, deny: Permission.ManageWebhooks }] });
    const synced = fake.addChannel({ name: 'quiet-chat', parentId: category.id });
    const hidden = fake.addChannel({ name: 'mods-only', overwrites: [{ id: everyone, deny: Permission.ViewChannel }] });
    const noDelete = fake.addChannel({ name: 'no-delete', overwrites: [{ id: fake.botUser.id, type: 'member', deny: Permission.ManageMessages | Permission.AttachFiles }] });
    // A role overwrite that gives back what @everyone's takes away.
    const allowedBack = fake.addChannel({ name: 'allowed-back', overwrites: [{ id: everyone, deny: Permission.EmbedLinks }, { id: fake.botRoleId, allow: Permission.EmbedLinks }] });
    const forum = fake.addChannel({ name: 'forum', type: 15, overwrites: [{ id: fake.botRoleId, deny: Permission.SendMessages | Permission.SendMessagesInThreads }] });
    const guild = h.bot.client.guilds.cache.get(fake.guild.id);
    if (!guild) throw new Error('no guild');
    await until(() => guild.channels.cache.has(forum.id), 'the channels in the bot’s cache');

    const channels = botChannelPermissions(guild);
    for (const entry of channels) expect(entry.permissions).toBe(fake.permissionsIn(entry.channelId));
    expect(channels.map((entry) => entry.channelId)).not.toContain(category.id);
    expect(channels.find((entry) => entry.channelId === forum.id)?.kind).toBe('forum');

    const report = auditPermissions(channels).map((group) => [group.permission.name, group.channelIds]);
    expect(report).toEqual([
      ['View Channel', [hidden.id]],
      ['Manage Webhooks', [synced.id]],
      ['Manage Messages', [noDelete.id]],
      ['Attach Files', [noDelete.id]],
      ['Send Messages in Threads', [forum.id]],
    ]);
    expect(report.flat(2)).not.toContain(allowedBack.id);
    // The category fix reaches its synced channel: allowed on the category, the report is clean there.
    fake.setChannelOverwrites(category.id, []);
    await until(() => guild.channels.cache.get(synced.id)?.permissionsFor(fake.botUser.id)?.has(PermissionFlagsBits.ManageWebhooks), 'the synced channel updated');
    const after = auditPermissions(botChannelPermissions(guild));
    expect(after.flatMap((group) => group.channelIds)).not.toContain(synced.id);
    const embed = auditEmbed(after, channels.length);
    expect(embed.fields?.map((f) => f.name)).toEqual(['View Channel (1 channel)', 'Manage Messages (1 channel)', 'Attach Files (1 channel)', 'Send Messages in Threads (1 channel)']);
    expect(embed.fields?.[0]?.value).toContain(`<#${hidden.id}>`);
  });
});
