// Server settings through the real bot against the fake Discord, on every dialect: /server and its
// permission re-check, the settings cache (0 settings calls per message in the steady state,
// counted; a change made through another bot process applies to the next message here), and the
// rules in the message path: blacklist (threads follow their parent, a category covers its
// channels, commands still work), blocks with their reason and who set them, the required display
// tag, the proxy delay, each told privately at most once a day.
import { MessageFlags, PermissionFlagsBits } from 'discord.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RunningBot } from '../../src/bot/bot.js';
import type { GuildSettings } from '../../src/domain/guild.js';
import { runBot } from '../../src/run-bot.js';
import { signIn, type ApiUser } from '../support/api.js';
import { quietLog, startBotHarness, type BotHarness } from '../support/bot.js';
import { DIALECTS } from '../support/dialects.js';
import { startFakeDiscord, user, type ApiMessage, type FakeDiscord, type Json, type RecordedResponse } from '../support/fake-discord.js';

const ALICE = user('430000000000000001', 'alice');
const ADMIN = user('430000000000000002', 'admin');
const HELPER = user('430000000000000003', 'helper');
const MANAGE = (PermissionFlagsBits.ManageGuild | PermissionFlagsBits.ViewChannel | PermissionFlagsBits.SendMessages).toString();
const PLAIN = (PermissionFlagsBits.ViewChannel | PermissionFlagsBits.SendMessages).toString();

const isAnswer = (response: RecordedResponse) => response.kind === 'edit' || (response.kind === 'callback' && response.callbackType === 4) || response.kind === 'followup';
const contentOf = (response: RecordedResponse) => String(response.body.content ?? '');
const embedsOf = (response: RecordedResponse) =>
  (response.body.embeds ?? []) as Array<{ title?: string; description?: string; fields?: Array<{ name: string; value: string }> }>;

describe.each(DIALECTS)('server settings through the bot (%s)', (dialect) => {
  let h: BotHarness;
  let alice: ApiUser;
  let channel: string;
  const outcomes = new Map<string, string>();
  const waiting = new Map<string, (outcome: string) => void>();

  function watch(bot: RunningBot) {
    bot.context.proxying.outcomes.on('handled', (id, outcome) => {
      outcomes.set(id, outcome);
      waiting.get(id)?.(outcome);
    });
  }
  function outcomeOf(messageId: string, timeoutMs = 30_000): Promise<string> {
    const known = outcomes.get(messageId);
    if (known) return Promise.resolve(known);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`message ${messageId} was not handled`)), timeoutMs);
      waiting.set(messageId, (outcome) => (clearTimeout(timer), resolve(outcome)));
    });
  }
  const say = (content: string, extra: Partial<Parameters<FakeDiscord['sendUserMessage']>[0]> = {}, fake = h.fake) => fake.sendUserMessage({ author: ALICE, channelId: channel, content, ...extra });
  const sent = async (content: string, extra: Partial<Parameters<FakeDiscord['sendUserMessage']>[0]> = {}) => {
    const message = say(content, extra);
    return { message, outcome: await outcomeOf(message.id) };
  };
  const dms = () => h.fake.directMessages(ALICE.id).map((m) => String(m.content));

  /** `resolved` for channel, role and user options, as Discord sends it. */
  function resolvedFor(fake: FakeDiscord, options: Json[]): Json {
    const resolved: { channels: Json; roles: Json; users: Json } = { channels: {}, roles: {}, users: {} };
    for (const option of options) {
      const value = String(option.value);
      if (option.type === 7) {
        const known = fake.channel(value);
        resolved.channels[value] = { id: value, name: known?.name ?? 'channel', type: known?.type ?? 0, permissions: '0', ...(known?.parent_id ? { parent_id: known.parent_id } : {}) };
      }
      if (option.type === 8 || (option.type === 9 && option.role)) resolved.roles[value] = { id: value, name: 'role', color: 0, hoist: false, position: 1, permissions: '0', managed: false, mentionable: true, flags: 0 };
      if (option.type === 6 || (option.type === 9 && !option.role)) resolved.users[value] = { id: value, username: `user${value.slice(-3)}`, discriminator: '0', avatar: null, global_name: null };
    }
    return resolved;
  }
  /** Runs /server as `who` with `permissions` (Manage Server by default) and waits for its answer. */
  async function server(subcommand: string, options: Json[] = [], group?: string, who = ADMIN, permissions = MANAGE, fake = h.fake) {
    const clean = options.map(({ role: _role, ...option }) => option);
    const payload = fake.slashCommand({ name: 'server', user: who, permissions, subcommand, ...(group ? { subcommandGroup: group } : {}), options: clean, resolved: resolvedFor(fake, options) });
    const handle = fake.dispatchInteraction(payload);
    return handle.waitForResponse(isAnswer, 30_000);
  }
  const channelOption = (name: string, id: string) => ({ type: 7, name, value: id });
  /** An admin allows /server to a role (the server's id: everyone) in Integrations; no role: back to the default. */
  function allowServerCommand(roleId?: string) {
    const command = (h.fake.commands(h.fake.guild.id) as Array<{ id: string; name: string }>).find((c) => c.name === 'server');
    if (!command) throw new Error('/server is not registered');
    h.fake.setCommandPermissions(command.id, roleId === undefined ? [] : [{ id: roleId, type: 1, permission: true }]);
  }
  const settingsNow = async () => (await h.bot.context.api.getGuildSettings(h.fake.guild.id)) as { notModified: false; settings: GuildSettings };

  beforeAll(async () => {
    // No test here is about a slow service: the bot's API timeout (5 s by default) is long enough
    // that a loaded machine does not turn a slow answer into "switchboard cannot be reached", as it
    // did for a second bot process starting up beside the first (its first token and settings
    // reads); the waits above are as long, and end as soon as the answer comes.
    h = await startBotHarness({ dialect, env: { RATE_LIMIT_ENABLED: 'false', BOT_API_TIMEOUT: '25000' } });
    watch(h.bot);
    channel = h.fake.channelId;
    await h.link(ALICE.id);
    h.fake.addMember({ user: ALICE });
    h.fake.addMember({ user: ADMIN });
    h.fake.addMember({ user: HELPER });
    alice = await signIn(h.server, ALICE.id);
    expect((await alice.call('POST', '/v1/users/@me/system/create-alter', { username: 'kestrel', displayName: 'Kestrel', proxyTags: [{ prefix: 'k:' }] })).status).toBe(201);
  }, 60_000);
  afterAll(async () => h?.stop());

  describe('/server', () => {
    it('is registered for Manage Server, in servers only, with its subcommands and groups', () => {
      const command = (h.fake.commands(h.fake.guild.id) as Array<{ name: string; default_member_permissions?: string; contexts?: number[]; options?: Array<{ name: string; type: number; options?: Array<{ name: string }> }> }>).find((c) => c.name === 'server');
      expect(command?.default_member_permissions).toBe(PermissionFlagsBits.ManageGuild.toString());
      expect(command?.contexts).toEqual([0]);
      expect(command?.options?.map((o) => [o.name, o.type])).toEqual([
        ['show', 1], ['log-channel', 1], ['log-ignore', 1], ['require-tag', 1], ['permissions', 1], ['proxy-delay', 1],
        ['blacklist', 2], ['block', 2], ['managers', 2], ['log-cleanup', 2],
      ]);
      for (const group of ['blacklist', 'block', 'managers', 'log-cleanup']) {
        expect(command?.options?.find((o) => o.name === group)?.options?.map((o) => o.name)).toEqual(['add', 'remove', 'list']);
      }
    });

    it('lists the channels where the bot lacks a permission it needs, grouped, with the fix', async () => {
      const hidden = h.fake.addChannel({ name: 'staff-only' });
      const noWebhooks = h.fake.addChannel({ name: 'announcements' });
      h.fake.setBotPermissions(hidden.id, 0n);
      h.fake.setBotPermissions(noWebhooks.id, h.fake.permissionsIn(h.fake.channelId) & ~PermissionFlagsBits.ManageWebhooks);
      try {
        const answer = await server('permissions');
        expect(answer.body.flags).toBe(MessageFlags.Ephemeral);
        const fields = embedsOf(answer)[0]?.fields ?? [];
        const view = fields.find((field) => field.name.startsWith('View Channel'));
        const webhooks = fields.find((field) => field.name.startsWith('Manage Webhooks'));
        expect(view?.value).toContain(`<#${hidden.id}>`);
        expect(webhooks?.value).toContain(`<#${noWebhooks.id}>`);
        // A channel the bot cannot see is listed once, under View Channel.
        expect(webhooks?.value).not.toContain(`<#${hidden.id}>`);
        expect(fields.some((field) => field.value.includes(`<#${h.fake.channelId}>`))).toBe(false);
      } finally {
        h.fake.setBotPermissions(hidden.id, null);
        h.fake.setBotPermissions(noWebhooks.id, null);
      }
    });

    it('is mentioned by /help to members who can use it, and only to them', async () => {
      const helpFor = async (who: typeof ADMIN, permissions: string) => {
        const handle = h.fake.dispatchInteraction(h.fake.slashCommand({ name: 'help', user: who, permissions }));
        return String(embedsOf(await handle.waitForResponse(isAnswer, 10_000))[0]?.description);
      };
      expect(await helpFor(ADMIN, MANAGE)).toContain('`/server show`');
      expect(await helpFor(HELPER, PLAIN)).not.toContain('/server');
    });

    it('checks the permission again on every use: without Manage Server or a manager role it changes nothing', async () => {
      // The server opened /server to everyone in its Integrations settings: Discord delivers it, and
      // the bot's own check is what refuses.
      allowServerCommand(h.fake.guild.id);
      try {
        const refused = await server('require-tag', [{ type: 5, name: 'enabled', value: true }], undefined, HELPER, PLAIN);
        expect(contentOf(refused)).toMatch(/Only members with \*\*Manage Server\*\*/);
        expect((await settingsNow()).settings.requireTag.enabled).toBe(false);
      } finally {
        allowServerCommand();
      }
    });

    it('shows every setting with who changed it last and when, privately', async () => {
      await server('proxy-delay', [{ type: 4, name: 'milliseconds', value: 0 }]);
      const changed = await server('log-channel', [channelOption('channel', channel)]);
      expect(contentOf(changed)).toContain(`<#${channel}>`);
      const shown = await server('show');
      expect(shown.body.flags).toBe(MessageFlags.Ephemeral);
      const fields = embedsOf(shown)[0]?.fields ?? [];
      expect(fields.map((f) => f.name)).toEqual(['Log channel', 'Not logged', 'Blacklist (no proxying)', 'Blocked', 'Display tag required', 'Manager roles', 'Proxy delay', 'Log cleanup bots']);
      expect(fields[0]?.value).toMatch(new RegExp(`^<#${channel}> — <@${ADMIN.id}> <t:\\d+:R>$`));
      expect(fields[4]?.value).toBe('no — default');
      const stored = (await settingsNow()).settings;
      expect(stored.logChannel).toMatchObject({ channelId: channel, changedBy: ADMIN.id });
      await server('log-channel');
      expect((await settingsNow()).settings.logChannel.channelId).toBeNull();
    });

    it('lets a manager role use it without Manage Server, and says so in the audit log', async () => {
      const managers = h.fake.addRole({ name: 'Mods', permissions: 0n });
      await server('add', [{ type: 8, name: 'role', value: managers.id }], 'managers');
      h.fake.addMember({ user: HELPER, roles: [managers.id] });
      // As the README tells admins: the manager role is also allowed /server under Integrations.
      allowServerCommand(managers.id);
      const answer = await server('add', [{ type: 9, name: 'who', value: '430000000000000099', role: false }, { type: 3, name: 'reason', value: 'testing' }], 'block', HELPER, PLAIN);
      expect(contentOf(answer)).toMatch(/does not proxy here/);
      const audit = await h.server.database.db.selectFrom('audit_log').selectAll().where('kind', '=', 'guild-settings-changed').where('user_id', '=', HELPER.id).execute();
      expect(audit).toHaveLength(1);
      expect(JSON.parse(audit[0]?.details ?? '{}')).toMatchObject({ guild: h.fake.guild.id, permission: 'manager-role' });
      const listed = await server('list', [], 'block', HELPER, PLAIN);
      expect(embedsOf(listed)[0]?.description).toContain('<@430000000000000099> (testing) — <@430000000000000003>');
      await server('remove', [{ type: 9, name: 'who', value: '430000000000000099', role: false }], 'block');
      await server('remove', [{ type: 8, name: 'role', value: managers.id }], 'managers');
      // Without the manager role the helper is refused again at once.
      expect(contentOf(await server('list', [], 'block', HELPER, PLAIN))).toMatch(/Only members/);
      allowServerCommand();
    });
  });

  describe('the settings cache', () => {
    it('makes no settings call per message in the steady state (counted), one profile revalidation each', async () => {
      expect((await sent('k: warm up')).outcome).toBe('proxied');
      h.proxy.mode = 'pass'; // starts the request log afresh
      for (let i = 0; i < 5; i += 1) expect((await sent(`k: steady ${i}`)).outcome).toBe('proxied');
      const log = h.proxy.log.map((entry) => entry.path);
      expect(log.filter((path) => path.startsWith('/v1/guilds/'))).toEqual([]);
      expect(log.filter((path) => path.includes('/proxy-profile?'))).toHaveLength(5);
    });

    it('applies a change made through another bot process to the next message here, with one settings read in each', async () => {
      // A second process (another shard's view of the same server) with its own gateway connection.
      const otherDiscord = await startFakeDiscord();
      let other: RunningBot | undefined;
      try {
        other = await runBot(
          {
            ...h.server.config,
            discord: { ...h.server.config.discord, apiBase: otherDiscord.apiBase },
            bot: { ...h.server.config.bot, token: otherDiscord.botToken },
          },
          quietLog,
          { address: h.server.address, db: h.server.database.db },
        );
        otherDiscord.addMember({ user: ADMIN });
        h.proxy.mode = 'pass';
        const answer = await server('add', [channelOption('target', channel)], 'blacklist', ADMIN, MANAGE, otherDiscord);
        expect(contentOf(answer)).toMatch(/Nothing is proxied/);
        const { outcome } = await sent('k: right after');
        expect(outcome).toBe('not-proxied');
        // Both processes reach the service through the same proxy: the other read the settings once
        // to check the permission, this one once because the profile told it a newer revision.
        expect(h.proxy.log.filter((entry) => entry.method === 'GET' && entry.path.startsWith('/v1/guilds/'))).toHaveLength(2);
        await server('remove', [channelOption('target', channel)], 'blacklist', ADMIN, MANAGE, otherDiscord);
        expect((await sent('k: allowed again')).outcome).toBe('proxied');
      } finally {
        await other?.stop();
        await otherDiscord.close();
      }
    });
  });

  describe('the rules', () => {
    // Each rule starts from a server with none set, whatever an earlier test left.
    beforeEach(async () => {
      const { settings } = await settingsNow();
      const ids = (entries: Array<{ id: string }>) => entries.map((entry) => entry.id);
      await h.bot.context.api.editGuildSettings(h.fake.guild.id, {
        actor: { userId: ADMIN.id, permission: 'manage-guild' },
        blacklist: { remove: ids(settings.blacklist) },
        blocks: { remove: ids(settings.blocks) },
        requireTag: false,
        proxyDelayMs: 0,
      });
    });

    it('blacklist: no proxying in the channel, its threads, a category’s channels; told once a day per channel; commands still work', async () => {
      // A room of its own: a notice for the test channel may have been given already today.
      const room = h.fake.addChannel({ name: 'room' });
      const category = h.fake.addChannel({ name: 'quiet zone', type: 4 });
      const inCategory = h.fake.addChannel({ name: 'library', parentId: category.id });
      const thread = h.fake.addChannel({ name: 'a thread', type: 11, parentId: room.id });
      const before = dms().length;
      await server('add', [channelOption('target', room.id)], 'blacklist');
      await server('add', [channelOption('target', category.id)], 'blacklist');
      for (const [where, extra] of [['channel', { channelId: room.id }], ['thread', { channelId: thread.id }], ['category', { channelId: inCategory.id }]] as const) {
        const { message, outcome } = await sent(`k: in the ${where}`, extra);
        expect(outcome, where).toBe('not-proxied');
        expect(h.fake.deletedMessages().some((m) => m.id === message.id)).toBe(false);
      }
      // Told once for the channel (its thread counts as it) and once for the category's channel.
      await h.fake.waitFor(() => dms().length >= before + 2, 5000, 'two notices');
      expect((await sent('k: again in the channel', { channelId: room.id })).outcome).toBe('not-proxied');
      expect((await sent('k: again in the thread', { channelId: thread.id })).outcome).toBe('not-proxied');
      await new Promise((resolve) => setTimeout(resolve, 200));
      const told = dms().slice(before);
      expect(told).toHaveLength(2);
      expect(told).toEqual(expect.arrayContaining([
        expect.stringMatching(/not proxied: the admins of \*\*.+\*\* turned proxying off in that channel\. Commands still work there\./),
        expect.stringContaining(`in <#${category.id}>, which contains it`),
      ]));
      // An untagged message is not told about (nothing was asked of the bot).
      expect((await sent('just talking', { channelId: room.id })).outcome).toBe('not-proxied');
      // Commands still work in a blacklisted channel.
      expect(embedsOf(await server('list', [], 'blacklist'))[0]?.description).toContain(`<#${category.id}>`);
      await server('remove', [channelOption('target', room.id)], 'blacklist');
      await server('remove', [channelOption('target', category.id)], 'blacklist');
      expect((await sent('k: free again', { channelId: thread.id })).outcome).toBe('proxied');
    });

    it('blocks: a user or a role’s members do not proxy; told the reason and who set it, once a day', async () => {
      const muted = h.fake.addRole({ name: 'Muted', permissions: 0n });
      expect((await sent('k: before the block')).outcome).toBe('proxied');
      const before = dms().length;
      await server('add', [{ type: 9, name: 'who', value: ALICE.id, role: false }, { type: 3, name: 'reason', value: 'flooding' }], 'block');
      // Nor can a message sent before the block be re-sent.
      const reproxied = await h.fake.dispatchInteraction(h.fake.slashCommand({ name: 'reproxy', user: ALICE, options: [{ type: 3, name: 'alter', value: 'kestrel' }] })).waitForResponse(isAnswer, 10_000);
      expect(contentOf(reproxied)).toMatch(/you may not proxy there \(set by <@430000000000000002>\)\. Reason: flooding/);
      expect((await sent('k: blocked')).outcome).toBe('not-proxied');
      expect((await sent('k: blocked twice')).outcome).toBe('not-proxied');
      await h.fake.waitFor(() => dms().length > before, 5000, 'the block notice');
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(dms().slice(before)).toEqual([expect.stringMatching(new RegExp(`you may not proxy there \\(set by <@${ADMIN.id}>\\)\\. Reason: flooding`))]);
      await server('remove', [{ type: 9, name: 'who', value: ALICE.id, role: false }], 'block');
      expect((await sent('k: unblocked')).outcome).toBe('proxied');

      await server('add', [{ type: 9, name: 'who', value: muted.id, role: true }], 'block');
      expect((await sent('k: no role yet')).outcome).toBe('proxied');
      expect((await sent('k: with the role', { member: { roles: [muted.id] } })).outcome).toBe('not-proxied');
      await server('remove', [{ type: 9, name: 'who', value: muted.id, role: true }], 'block');
      expect((await sent('k: role unblocked', { member: { roles: [muted.id] } })).outcome).toBe('proxied');
    });

    it('require-tag: a name without the display tag is not proxied and its sender told what to set; with the tag it is', async () => {
      const before = dms().length;
      await server('require-tag', [{ type: 5, name: 'enabled', value: true }]);
      expect((await sent('k: no tag')).outcome).toBe('not-proxied');
      await h.fake.waitFor(() => dms().length > before, 5000, 'the tag notice');
      expect(dms().at(-1)).toMatch(/requires proxied names to carry your system’s display tag.*display-tag/);
      expect((await alice.call('POST', '/v1/users/@me/system/edit', { systemDisplayTag: '| Flock' })).status).toBe(200);
      const execution = h.fake.webhookExecutions().length;
      expect((await sent('k: tagged')).outcome).toBe('proxied');
      expect(h.fake.webhookExecutions()[execution]?.body).toMatchObject({ username: 'Kestrel | Flock' });
      await server('require-tag', [{ type: 5, name: 'enabled', value: false }]);
    });

    it('proxy-delay: waits before proxying; a message deleted during the wait is not proxied', async () => {
      await server('proxy-delay', [{ type: 4, name: 'milliseconds', value: 600 }]);
      const executions = h.fake.webhookExecutions().length;
      const doomed: ApiMessage = say('k: filtered');
      // A filter bot removes it during the wait.
      h.fake.deleteUserMessage(doomed.id);
      expect(await outcomeOf(doomed.id)).toBe('not-proxied');
      expect(h.fake.webhookExecutions()).toHaveLength(executions);
      const kept = await sent('k: waited for');
      expect(kept.outcome).toBe('proxied');
      await server('proxy-delay', [{ type: 4, name: 'milliseconds', value: 0 }]);
    });
  });

  describe('the log channel and log cleanup', () => {
    let logs: string;
    const entries = (title: string) => h.fake.messages(logs).filter((m) => (m.embeds as Array<{ title?: string }> | undefined)?.some((e) => e.title === title));
    const embedOf = (m: ApiMessage) =>
      (m.embeds as Array<{ title?: string; description?: string; fields?: Array<{ name: string; value: string }>; footer?: { text: string } }>)[0];
    const field = (m: ApiMessage, name: string) => embedOf(m)?.fields?.find((f) => f.name === name)?.value;

    beforeAll(async () => {
      logs = h.fake.addChannel({ name: 'mod-log' }).id;
      await server('log-channel', [channelOption('channel', logs)]);
    });

    it('logs each proxied message: name, system and alter ids, sender, channel, link, text and attachments', async () => {
      const before = entries('Message proxied').length;
      const executions = h.fake.webhookExecutions().length;
      const { message, outcome } = await sent('k: for the record');
      expect(outcome).toBe('proxied');
      const proxiedId = h.fake.webhookExecutions()[executions]?.messageId ?? '';
      const entry = await h.fake.waitFor(() => entries('Message proxied')[before], 5000, 'a log entry');
      const { id: systemId } = await h.server.database.db.selectFrom('systems').select('id').where('user_id', '=', ALICE.id).executeTakeFirstOrThrow();
      expect(embedOf(entry)?.description).toBe('k: for the record');
      expect(field(entry, 'Sent as')).toMatch(/^Kestrel/);
      expect(field(entry, 'System')).toBe(`(\`${systemId}\`)`); // private by default: the id only
      expect(field(entry, 'Alter')).toMatch(/^`\d+`$/);
      expect(field(entry, 'Sender')).toBe(`<@${ALICE.id}> (\`${ALICE.id}\`)`);
      expect(field(entry, 'Channel')).toBe(`<#${channel}>`);
      expect(field(entry, 'Attachments')).toBe('0');
      expect(field(entry, 'Message')).toBe(`https://discord.com/channels/${h.fake.guild.id}/${channel}/${proxiedId}`);
      expect(embedOf(entry)?.footer?.text).toContain(message.id);
      // Mentions in a log entry ping nobody.
      expect(entry.content ?? '').toBe('');
      // A system that shows its name is named.
      expect((await alice.call('POST', '/v1/users/@me/system/edit', { systemName: 'The Flock', public: 1 })).status).toBe(200);
      expect((await sent('k: named')).outcome).toBe('proxied');
      const named = await h.fake.waitFor(() => entries('Message proxied')[before + 1], 5000, 'a second log entry');
      expect(field(named, 'System')).toBe(`The Flock (\`${systemId}\`)`);
      expect((await alice.call('POST', '/v1/users/@me/system/edit', { public: 0 })).status).toBe(200);
    });

    it('logs edits and deletions of proxied messages, and leaves log-ignored channels out', async () => {
      const executions = h.fake.webhookExecutions().length;
      expect((await sent('k: to be edited')).outcome).toBe('proxied');
      const proxiedId = h.fake.webhookExecutions()[executions]?.messageId ?? '';
      h.fake.editUserMessage(proxiedId, { content: 'edited text' });
      const edit = await h.fake.waitFor(() => entries('Proxied message edited').at(-1), 5000, 'an edit entry');
      expect(field(edit, 'Before')).toBe('to be edited');
      expect(field(edit, 'After')).toBe('edited text');
      h.fake.deleteUserMessage(proxiedId);
      const deletion = await h.fake.waitFor(() => entries('Proxied message deleted').at(-1), 5000, 'a deletion entry');
      expect(embedOf(deletion)?.footer?.text).toContain(proxiedId);

      const quiet = h.fake.addChannel({ name: 'off the record' });
      const toggled = await server('log-ignore', [channelOption('channel', quiet.id)]);
      expect(contentOf(toggled)).toMatch(/not logged from now on/);
      const count = entries('Message proxied').length;
      expect((await sent('k: unlogged', { channelId: quiet.id })).outcome).toBe('proxied');
      expect((await sent('k: logged')).outcome).toBe('proxied');
      await h.fake.waitFor(() => entries('Message proxied').length > count, 5000, 'the logged entry');
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(entries('Message proxied').slice(count).map((m) => embedOf(m)?.description)).toEqual(['k: logged']);
      expect(contentOf(await server('log-ignore', [channelOption('channel', quiet.id)]))).toMatch(/logged again/);
    });

    it('tells the admin who set the log channel, once, when the bot cannot post there', async () => {
      const locked = h.fake.addChannel({ name: 'locked-log' });
      h.fake.setBotPermissions(locked.id, PermissionFlagsBits.ViewChannel);
      await server('log-channel', [channelOption('channel', locked.id)]);
      const before = h.fake.directMessages(ADMIN.id).length;
      expect((await sent('k: unloggable one')).outcome).toBe('proxied');
      expect((await sent('k: unloggable two')).outcome).toBe('proxied');
      await h.fake.waitFor(() => h.fake.directMessages(ADMIN.id).length > before, 5000, 'the admin notice');
      await new Promise((resolve) => setTimeout(resolve, 300));
      const told = h.fake.directMessages(ADMIN.id).slice(before).map((m) => String(m.content));
      expect(told).toEqual([expect.stringContaining(`I cannot post in <#${locked.id}>, the log channel you set`)]);
      await server('log-channel', [channelOption('channel', logs)]);
    });

    it('removes a named logging bot’s "message deleted" entry for an original it proxied, and nothing else', async () => {
      const logger = user('430000000000000077', 'logger', { bot: true });
      const stranger = user('430000000000000078', 'otherlogger', { bot: true });
      h.fake.addMember({ user: logger });
      h.fake.addMember({ user: stranger });
      await server('add', [{ type: 6, name: 'bot', value: logger.id }], 'log-cleanup');
      const { message, outcome } = await sent('k: clean up after me');
      expect(outcome).toBe('proxied');
      const entry = (author: typeof logger, id: string) =>
        h.fake.sendUserMessage({ author, bot: true, channelId: logs, content: '', embeds: [{ title: 'Message deleted', description: 'k: clean up after me', footer: { text: `Message ID: ${id}` } }] });
      const named = entry(logger, message.id);
      const otherId = entry(logger, '499999999999999999');
      const unnamedBot = entry(stranger, message.id);
      await h.fake.waitFor(() => h.fake.deletedMessages(logs).some((m) => m.id === named.id), 5000, 'the entry removed');
      await new Promise((resolve) => setTimeout(resolve, 300));
      const removed = h.fake.deletedMessages(logs).map((m) => m.id);
      expect(removed).not.toContain(otherId.id);
      expect(removed).not.toContain(unnamedBot.id);
      expect(embedsOf(await server('list', [], 'log-cleanup'))[0]?.description).toContain(`<@${logger.id}>`);
    });
  });
});
