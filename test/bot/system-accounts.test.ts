// Several Discord accounts for one system through the bot (issue 29): the real service, the real
// bot (discord.js) and the fake Discord. /system accounts add shows a code; /link code: redeems it
// (at once when the account is linked, after its sign-in when not); the joined account proxies as
// the system with its own link; /system accounts list and remove; a removed account is proxied no
// more.
import { MessageFlags } from 'discord.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACCOUNT_CODE_ALPHABET, ACCOUNT_CODE_LENGTH } from '../../src/domain/accounts.js';
import type { Alter } from '../../src/domain/alter.js';
import type { MessageInfo } from '../../src/domain/proxied-message.js';
import { request, signIn, type ApiUser } from '../support/api.js';
import { approveWithLoginLink, startBotHarness, type BotHarness } from '../support/bot.js';
import { resolvedUsers, user, type RecordedResponse } from '../support/fake-discord.js';

const ALICE = user('400000000000000291', 'alice');
const BOB = user('400000000000000292', 'bob');
const CAROL = user('400000000000000293', 'carol');

type Json = Record<string, unknown>;
const isAnswer = (response: RecordedResponse) => response.kind === 'edit' || (response.kind === 'callback' && response.callbackType === 4) || response.kind === 'followup';
const contentOf = (response: RecordedResponse) => String(response.body.content ?? '');
const componentsOf = (response: RecordedResponse) => ((response.body.components ?? []) as Array<{ components: Json[] }>).flatMap((row) => row.components);
const CODE = new RegExp(`\\*\\*([${ACCOUNT_CODE_ALPHABET}]{${ACCOUNT_CODE_LENGTH}})\\*\\*`);

describe('accounts of a system through the bot', () => {
  let h: BotHarness;
  let alice: ApiUser;
  let kestrel: Alter;
  let channel: string;
  const outcomes = new Map<string, string>();
  const waiting = new Map<string, (outcome: string) => void>();

  function outcomeOf(messageId: string, timeoutMs = 10_000): Promise<string> {
    const known = outcomes.get(messageId);
    if (known) return Promise.resolve(known);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`message ${messageId} was not handled`)), timeoutMs);
      waiting.set(messageId, (outcome) => (clearTimeout(timer), resolve(outcome)));
    });
  }

  beforeAll(async () => {
    h = await startBotHarness({ env: { RATE_LIMIT_ENABLED: 'false' } });
    h.bot.context.proxying.outcomes.on('handled', (id, outcome) => {
      outcomes.set(id, outcome);
      waiting.get(id)?.(outcome);
    });
    channel = h.fake.channelId;
    for (const member of [ALICE, BOB, CAROL]) h.fake.addMember({ user: member });
    await h.link(ALICE.id);
    await h.link(BOB.id);
    alice = await signIn(h.server, ALICE.id);
    kestrel = (await alice.call<Alter>('POST', '/v1/users/@me/system/create-alter', { username: 'kestrel', displayName: 'Kestrel', proxyTags: [{ prefix: 'k:' }] })).body;
  }, 60_000);
  afterAll(async () => h?.stop());

  const slash = (name: string, input: { subcommand?: string; subcommandGroup?: string; options?: Json[]; resolved?: Json }, who = ALICE) =>
    h.run(h.fake.slashCommand({ name, user: who, channelId: channel, ...input }), isAnswer, 20_000);
  const accounts = (subcommand: string, who = ALICE, options: Json[] = [], resolved?: Json) =>
    slash('system', { subcommandGroup: 'accounts', subcommand, options, ...(resolved ? { resolved } : {}) }, who);
  async function newCode(): Promise<string> {
    const { response } = await accounts('add');
    expect(response.body.flags).toBe(MessageFlags.Ephemeral);
    const code = CODE.exec(contentOf(response))?.[1];
    if (!code) throw new Error(`no code in ${contentOf(response)}`);
    expect(contentOf(response)).toContain(`/link code:${code}`);
    return code;
  }
  async function recordOf(messageId: string): Promise<MessageInfo> {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const response = await request<{ data: MessageInfo }>(h.server, 'GET', `/v1/messages/${messageId}`, { token: alice.token });
      if (response.status === 200) return response.body.data;
      if (Date.now() > deadline) throw new Error(`no record of ${messageId}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  let redeemed = '';

  it('joins a linked account with /link code:, which then proxies as the system with its own link', async () => {
    // Bob's own system is empty, so it goes; his link stays his.
    const code = (redeemed = await newCode());
    const { response } = await slash('link', { options: [{ type: 3, name: 'code', value: code }] }, BOB);
    expect(response.body.flags).toBe(MessageFlags.Ephemeral);
    expect(contentOf(response)).toContain(`now an account of the system of <@${ALICE.id}>`);

    const executions = () => h.fake.webhookExecutions().filter((e) => e.kind === 'execute');
    const before = executions().length;
    const original = h.fake.sendUserMessage({ author: BOB, channelId: channel, content: 'k: from the second account' });
    expect(await outcomeOf(original.id)).toBe('proxied');
    const execution = executions()[before];
    expect(execution?.body).toMatchObject({ content: 'from the second account', username: 'Kestrel' });
    const info = await recordOf(execution?.messageId ?? '');
    expect(info).toMatchObject({ senderId: BOB.id, alterId: kestrel.alterId, system: { associatedUserId: ALICE.id } });

    const { response: listed } = await accounts('list', BOB);
    expect(contentOf(listed)).toContain(`Owning account: <@${ALICE.id}>`);
    expect(contentOf(listed)).toContain(`Other accounts: <@${BOB.id}>`);
  });

  it('turns autoproxy off for one account with /autoproxy set only-this-account:, the others keep the system’s', async () => {
    expect((await alice.call('POST', '/v1/users/@me/autoproxy', { serverId: h.fake.guild.id, autoproxyMode: 'alter', autoproxyAlter: kestrel.alterId })).status).toBe(200);
    const { response } = await slash('autoproxy', { subcommand: 'set', options: [{ type: 3, name: 'mode', value: 'off' }, { type: 5, name: 'only-this-account', value: true }] }, BOB);
    expect(contentOf(response)).toMatch(/^Autoproxy is off in this server \(for this Discord account only\)/);
    const fromBob = h.fake.sendUserMessage({ author: BOB, channelId: channel, content: 'untagged from bob' });
    expect(await outcomeOf(fromBob.id)).toBe('not-proxied');
    const fromAlice = h.fake.sendUserMessage({ author: ALICE, channelId: channel, content: 'untagged from alice' });
    expect(await outcomeOf(fromAlice.id)).toBe('proxied');
    const { response: shown } = await slash('autoproxy', { subcommand: 'show' }, BOB);
    expect(contentOf(shown)).toContain('in this server (this account only): **off**');
    // Back to the system's entry for Bob, and no autoproxy for the rest of this file.
    await slash('autoproxy', { subcommand: 'clear', options: [{ type: 5, name: 'only-this-account', value: true }] }, BOB);
    expect((await alice.call('POST', '/v1/users/@me/autoproxy/remove', { serverId: h.fake.guild.id })).body).toEqual({ removed: true });
  });

  it('tells what is wrong with a used code, and only the owning account makes codes', async () => {
    const { response: used } = await slash('link', { options: [{ type: 3, name: 'code', value: redeemed }] }, BOB);
    expect(contentOf(used)).toMatch(/^That code is unknown, used or expired/);
    const code = await newCode();
    const { response: own } = await accounts('add', BOB);
    expect(contentOf(own)).toMatch(/owns the system|only the account that owns/i);
    // Bob is in the system already: refused, and the code stays good for someone else.
    const { response } = await slash('link', { options: [{ type: 3, name: 'code', value: code }] }, BOB);
    expect(contentOf(response)).toMatch(/^This account cannot join yet/);
  });

  it('links an unlinked account with /link code: and joins it once signed in', async () => {
    const code = await newCode();
    const { handle, response } = await slash('link', { options: [{ type: 3, name: 'code', value: code }] }, CAROL);
    const button = componentsOf(response).find((c) => c.style === 5);
    await approveWithLoginLink(String(button?.url));
    const joined = await handle.waitForResponse((r) => r.kind === 'edit' && contentOf(r).startsWith('Linked!'), 20_000);
    expect(contentOf(joined)).toContain(`now an account of the system of <@${ALICE.id}>`);
    const system = await h.bot.context.accounts.withToken(CAROL.id, (token) => h.bot.context.api.getSystem(token, '@me'));
    expect(system.associatedUserId).toBe(ALICE.id);
    expect([...system.subAccounts].sort()).toEqual([BOB.id, CAROL.id].sort());
  }, 40_000);

  it('removes an account: it leaves itself or the owner removes it, and it is proxied as the system no more', async () => {
    const { response: left } = await accounts('remove', CAROL);
    expect(contentOf(left)).toMatch(/has left the system/);
    const { response: removed } = await accounts('remove', ALICE, [{ type: 6, name: 'account', value: BOB.id }], resolvedUsers([BOB]));
    expect(contentOf(removed)).toContain(`<@${BOB.id}> is no longer an account of your system`);
    const { response: listed } = await accounts('list');
    expect(contentOf(listed)).toContain('No other accounts');
    // Bob's link is gone with his grants: his tagged message is left alone.
    const message = h.fake.sendUserMessage({ author: BOB, channelId: channel, content: 'k: after removal' });
    expect(await outcomeOf(message.id)).toBe('ignored');
    expect(await h.bot.context.accounts.isLinked(BOB.id)).toBe(false);
  });

  it('registers /system accounts and /link code:', () => {
    const commands = h.fake.commands(h.fake.guild.id) as Array<{ name: string; options?: Array<{ name: string; options?: Array<{ name: string }> }> }>;
    const group = commands.find((c) => c.name === 'system')?.options?.find((o) => o.name === 'accounts');
    expect(group?.options?.map((o) => o.name)).toEqual(['add', 'remove', 'list']);
    expect(commands.find((c) => c.name === 'link')?.options?.map((o) => o.name)).toEqual(['code', 'discard-own-system']);
  });
});
