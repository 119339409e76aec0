// The bot when Discord itself misbehaves: the gateway drops mid-session (the session resumes and
// interactions sent meanwhile are still answered), Discord's REST API rate-limits the interaction
// callback or the webhook used for edits and follow-ups (the answer still lands after the
// retry), and the service fails part-way through a command that makes several calls (one short
// answer). Throughout: no unhandled rejection, and every interaction gets an answer inside
// Discord's 3-second window (a reply or a deferral first, the answer after).
import { MessageFlags } from 'discord.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startBotHarness, type BotHarness } from '../support/bot.js';
import { rateLimited, user, type InteractionHandle, type InteractionPayload, type RecordedResponse, type RestFailureMatcher } from '../support/fake-discord.js';
import { always, passFirst, startScriptedProxy, type ScriptedProxy } from '../support/scripted-proxy.js';

const ERIN = user('400000000000000021', 'erin');
/** A response that carries the answer itself (not a deferral or a deletion). */
const isAnswer = (r: RecordedResponse) => r.kind === 'edit' || r.kind === 'followup' || (r.kind === 'callback' && r.callbackType !== 5 && r.callbackType !== 6);
const embedsOf = (r: RecordedResponse) => (r.body.embeds ?? []) as Array<{ title?: string }>;
const summary = (handle: InteractionHandle) => handle.responses.map((r) => (r.kind === 'callback' ? `callback ${r.callbackType}` : r.kind));
const DISCORD_WINDOW_NS = 3_000_000_000n;

// Discord's REST routes as the fake records them (segments decoded).
const CALLBACK: RestFailureMatcher = { method: 'POST', path: /^\/api\/v\d+\/interactions\/\d+\/[^/]+\/callback$/ };
const EDIT_ORIGINAL: RestFailureMatcher = { method: 'PATCH', path: /^\/api\/v\d+\/webhooks\/\d+\/[^/]+\/messages\/@original$/ };
const FOLLOW_UP: RestFailureMatcher = { method: 'POST', path: /^\/api\/v\d+\/webhooks\/\d+\/[^/]+$/ };

describe('the bot when the gateway drops and Discord rate-limits', () => {
  let h: BotHarness;
  let scripted: ScriptedProxy;
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  /** Every interaction of this file, with when the bot could first have seen it. */
  const sent: Array<{ handle: InteractionHandle; visibleAt: () => bigint }> = [];

  beforeAll(async () => {
    process.on('unhandledRejection', onUnhandled);
    h = await startBotHarness({ env: { BOT_API_TIMEOUT: '3000' } });
    scripted = await startScriptedProxy(h.server.address);
    await h.link(ERIN.id);
  });
  afterAll(async () => {
    process.off('unhandledRejection', onUnhandled);
    await h?.stop();
    await scripted?.close();
  });
  afterEach(() => {
    h.proxy.target = h.server.address;
    h.proxy.mode = 'pass';
    for (const matcher of [CALLBACK, EDIT_ORIGINAL, FOLLOW_UP]) h.fake.setRestFailure(matcher, undefined);
  });

  function dispatch(payload: InteractionPayload, visibleAt?: () => bigint): InteractionHandle {
    const handle = h.fake.dispatchInteraction(payload);
    sent.push({ handle, visibleAt: visibleAt ?? (() => handle.sentAt) });
    return handle;
  }
  const answer = (handle: InteractionHandle, timeoutMs = 10_000) => handle.waitForResponse(isAnswer, timeoutMs);
  const systemShow = () => h.fake.slashCommand({ name: 'system', subcommand: 'show', user: ERIN });
  const help = () => h.fake.slashCommand({ name: 'help', user: ERIN });
  const viewOwnSystem = () => h.fake.userContextMenu({ name: 'View system', targetUser: ERIN, user: ERIN });
  /** The service behind the scripted proxy, from the next request on. */
  function scriptService(script: Parameters<ScriptedProxy['play']>[0]) {
    scripted.play(script);
    h.proxy.target = scripted.url;
  }
  const requestsTo = (matcher: RestFailureMatcher, handle: InteractionHandle) =>
    h.fake.requests.filter((r) => r.method === matcher.method && matcher.path.test(r.path) && r.path.includes(handle.token));

  describe.each([
    { code: 4000, why: 'unknown error, resumable' },
    { code: 1012, why: 'service restart: an abnormal close discord.js resumes from; 1006 itself cannot be sent in a close frame' },
  ])('gateway close $code ($why)', ({ code }) => {
    it('resumes the session and answers the next interaction', async () => {
      const before = await answer(dispatch(systemShow()));
      expect(embedsOf(before)[0]?.title).toBe('My system');
      const identifies = h.fake.identifies.length;
      const resumes = h.fake.resumeCount();

      h.fake.disconnectGateway(code);
      await h.fake.waitForResume(15_000);
      expect(h.fake.resumeCount()).toBe(resumes + 1);
      expect(h.fake.identifies.length, 'resumed, not identified again').toBe(identifies);

      const after = await answer(dispatch(systemShow()));
      expect(embedsOf(after)[0]?.title).toBe('My system');
      const helped = await answer(dispatch(help()));
      expect(embedsOf(helped)[0]?.title).toBe('switchboard');
    });
  });

  it('answers interactions sent while the socket was down once the session resumes', async () => {
    const resumes = h.fake.resumeCount();
    let resumedAt = 0n;
    h.fake.disconnectGateway(4000);
    // Dispatched before the bot can have reconnected: the fake keeps them for the RESUME replay.
    const whileDown = [dispatch(systemShow(), () => resumedAt), dispatch(help(), () => resumedAt)];
    await h.fake.waitForResume(15_000);
    resumedAt = process.hrtime.bigint();
    expect(h.fake.resumeCount()).toBe(resumes + 1);

    const [shown, helped] = await Promise.all(whileDown.map((handle) => answer(handle)));
    expect(embedsOf(shown as RecordedResponse)[0]?.title).toBe('My system');
    expect(embedsOf(helped as RecordedResponse)[0]?.title).toBe('switchboard');
    for (const handle of whileDown) expect(handle.responses.filter((r) => r.kind === 'callback'), summary(handle).join(', ')).toHaveLength(1);
  });

  it('lands the reply after Discord answers the interaction callback with a 429', async () => {
    h.fake.setRestFailure(CALLBACK, rateLimited(1, 1));
    const handle = dispatch(help());
    const reply = await answer(handle);
    expect(reply.kind).toBe('callback');
    expect(reply.callbackType).toBe(4);
    expect(embedsOf(reply)[0]?.title).toBe('switchboard');
    expect(requestsTo(CALLBACK, handle), 'the 429 and the retry').toHaveLength(2);
    expect(summary(handle)).toEqual(['callback 4']);
  });

  it('completes a deferred answer after Discord answers the edit of @original with a 429', async () => {
    // A slow service (2 s > the bot's 1.5 s deferral threshold): defer publicly, then edit.
    scriptService(always({ delayMs: 2000, then: 'pass' }));
    h.fake.setRestFailure(EDIT_ORIGINAL, rateLimited(1, 1));
    const handle = dispatch(systemShow());
    const edit = await handle.waitForResponse((r) => r.kind === 'edit', 15_000);
    expect(embedsOf(edit)[0]?.title).toBe('My system');
    expect(handle.responses[0]).toMatchObject({ kind: 'callback', callbackType: 5 });
    expect(requestsTo(EDIT_ORIGINAL, handle), 'the 429 and the retry').toHaveLength(2);
    expect(summary(handle)).toEqual(['callback 5', 'edit']);
    expect(handle.latestMessage()?.embeds).toHaveLength(1);
  });

  it('completes a private error follow-up after Discord answers the follow-up webhook with a 429', async () => {
    // Slow, then failing: the public "thinking…" is deleted and the error sent privately.
    scriptService(always({ delayMs: 2000, then: 'error-500' }));
    h.fake.setRestFailure(FOLLOW_UP, rateLimited(1, 1));
    const handle = dispatch(systemShow());
    const followUp = await handle.waitForResponse((r) => r.kind === 'followup', 15_000);
    expect(followUp.body.flags).toBe(MessageFlags.Ephemeral);
    expect(String(followUp.body.content)).toMatch(/had a problem/);
    expect(requestsTo(FOLLOW_UP, handle), 'the 429 and the retry').toHaveLength(2);
    expect(summary(handle)).toEqual(['callback 5', 'delete', 'followup']);
  });

  describe.each([
    { mode: 'error-500' as const, says: /had a problem/ },
    { mode: 'reset' as const, says: /cannot be reached/ },
  ])('the service failing ($mode) after the first of several calls', ({ mode, says }) => {
    it('gives one short private answer', async () => {
      // "View system" reads the system, then the front (optional), then the alters.
      scriptService(passFirst(1, mode));
      const handle = dispatch(viewOwnSystem());
      const reply = await answer(handle);
      expect(reply.body.flags).toBe(MessageFlags.Ephemeral);
      expect(String(reply.body.content)).toMatch(says);
      expect(reply.body.embeds ?? []).toEqual([]);
      expect(scripted.log.map((r) => `${new URL(r.path, 'http://x').pathname.replace('%40', '@')} ${r.action}`)).toEqual([
        '/v1/users/@me/system pass',
        `/v1/users/@me/front ${mode}`,
        `/v1/users/@me/system/list-alters ${mode}`,
      ]);
      await sleep(300); // nothing else trickles in
      expect(summary(handle)).toEqual(['callback 4']);
    });
  });

  it('defers, then gives one short answer, when the service stops answering mid-way', async () => {
    scriptService(passFirst(1, 'hang'));
    const handle = dispatch(viewOwnSystem());
    const reply = await answer(handle, 15_000);
    expect(String(reply.body.content)).toMatch(/too long/);
    expect(handle.latestMessage()?.flags ?? 0).toBe(MessageFlags.Ephemeral);
    expect(summary(handle)).toEqual(['callback 5', 'edit']);
  });

  it('answered every interaction, acknowledging each within Discord’s 3 seconds, with no unhandled rejection', async () => {
    expect(sent.length).toBeGreaterThanOrEqual(14);
    for (const { handle, visibleAt } of sent) {
      const what = `${String(handle.payload.data?.name)} ${handle.id}: ${summary(handle).join(', ')}`;
      expect(handle.responses.some(isAnswer), `${what} was answered`).toBe(true);
      const first = handle.responses.find((r) => r.kind === 'callback');
      expect(first, `${what} was acknowledged`).toBeDefined();
      expect((first?.receivedAt ?? 0n) - visibleAt() < DISCORD_WINDOW_NS, `${what} acknowledged within 3 s`).toBe(true);
    }
    expect(unhandled).toEqual([]);
  });
});
