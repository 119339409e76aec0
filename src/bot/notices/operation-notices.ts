// Direct messages that tell owners when another app changed their system (the origin's
// `systemOperationDM`, on by default): which app, and what it did, with a button that turns them
// off. The bot learns of changes the way any integration can: it reads the service's event feed
// for its own client (`GET /v1/events/feed`, the events of users who authorized it, as their
// grants let it see them), so it needs no inbound port. Changes the bot made itself are not
// reported; changes close together are one message per owner (notice-batches.ts says when).
//
// One bot process reads the feed: the holder of the "operation-notices" role (coordination.ts),
// whichever shards it holds. The feed position, the batches waiting for a quiet read and the
// messages due are kept in the shared store (sealed) and saved before each message is sent and
// after, so when the role moves (its holder stopped or died) the next holder goes on from there:
// a change is told once. The position starts at "now" when none is kept, or when the kept one is
// over an hour old (changes made while no bot ran are history, not news).
import { ActionRowBuilder, ButtonBuilder, ButtonStyle, MessageFlags, type ButtonInteraction, type Client } from 'discord.js';
import { shortenGraphemes } from '../../domain/proxy/text.js';
import type { ApiClient, FeedEvent } from '../api-client.js';
import type { BotContext, ButtonHandler } from '../command.js';
import type { BotLog } from '../log.js';
import type { LinkedAccounts } from '../links/linked-accounts.js';
import type { BotShared } from '../processes/bot-shared.js';
import { NoticeBatches, type HeldBatches, type NoticeBatch } from './notice-batches.js';
import { describeOperations } from './operation-summary.js';

export const OPERATION_DM_PREFIX = 'operation-dm:';

/** The feed is read this often when nothing is waiting; a full page is followed at once. */
export const DEFAULT_NOTICE_INTERVAL_MS = 5_000;
const PAGE = 200;
/** An owner's events wait at most this many reads for one that brings nothing new for them. */
const MAX_HELD_READS = 6;

export interface OperationNotices {
  stop(): Promise<void>;
}

interface Directory {
  all(viewerId: string): Promise<Array<{ alterId: number; displayName: string | null; username: string | null }>>;
  invalidate(userId: string): void;
}

/** The reader's state, kept in the shared store between reads and across holders. */
interface FeedState {
  cursor: string;
  held: HeldBatches;
  /** Batches due, not yet sent: the first is sent next. */
  sending: NoticeBatch[];
  savedAt: number;
}

const STATE_KEY = 'operation-notices';
const STATE_CONTEXT = 'bot operation notices';
/** A kept position older than this is not resumed: what happened meanwhile is history. */
const STALE_AFTER_MS = 3600_000;

export function startOperationNotices(deps: {
  client: Client;
  api: ApiClient;
  accounts: LinkedAccounts;
  alters: Directory;
  log: BotLog;
  shared: BotShared;
  intervalMs?: number;
}): OperationNotices {
  const { client, api, accounts, alters, log } = deps;
  const { store, sealer, coordination } = deps.shared;
  const role = coordination.role('operation-notices');
  const interval = deps.intervalMs ?? DEFAULT_NOTICE_INTERVAL_MS;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();

  async function load(): Promise<FeedState | undefined> {
    const sealed = await store.get(STATE_KEY);
    const state = sealed === undefined ? undefined : sealer.unseal<FeedState>(sealed, STATE_CONTEXT);
    return state && Date.now() - state.savedAt < STALE_AFTER_MS ? state : undefined;
  }

  async function save(state: FeedState): Promise<void> {
    state.savedAt = Date.now();
    await store.set(STATE_KEY, sealer.seal(state, STATE_CONTEXT));
  }

  async function readFeed(): Promise<void> {
    if (!role.holds()) return;
    const state = await load();
    if (!state) {
      await save({ cursor: (await api.eventFeed(undefined, PAGE)).next, held: [], sending: [], savedAt: 0 });
      return;
    }
    // What the last holder had due and did not get to send.
    if (!(await tell(state))) return;
    const batches = NoticeBatches.restore(MAX_HELD_READS, state.held);
    let cursor = state.cursor;
    for (;;) {
      const page = await api.eventFeed(cursor, PAGE);
      cursor = page.next;
      for (const event of page.events) {
        // Another app's change: the directory's copy of this owner's alters is stale now.
        alters.invalidate(event.data.userId);
        if (!event.data.actor.self && event.data.actor.clientId !== null) batches.add(event);
      }
      if (!page.more || stopped) break;
    }
    if (!role.holds()) return;
    const next: FeedState = { cursor, held: [], sending: batches.endRead(), savedAt: 0 };
    next.held = batches.snapshot();
    await save(next);
    await tell(next);
  }

  /** Sends the due batches one by one, saving after each; false when the role moved meanwhile. */
  async function tell(state: FeedState): Promise<boolean> {
    while (state.sending.length > 0) {
      if (!role.holds()) return false;
      const { userId, events } = state.sending[0] as NoticeBatch;
      await notify(userId, events).catch((error: unknown) => log.info({ err: error, user: userId }, 'could not send an operation notice'));
      state.sending.shift();
      await save(state);
    }
    return true;
  }

  async function notify(userId: string, events: FeedEvent[]): Promise<void> {
    // The owner's own setting, read with their own link (the feed only has users who authorized the bot).
    const system = await accounts.withToken(userId, (token) => api.getSystem(token, '@me')).catch(() => undefined);
    if (system?.systemOperationDM !== true) return;
    const named = events.some((event) => event.type === 'switch.created') ? await alters.all(userId).catch(() => []) : [];
    const byId = new Map(named.map((alter) => [alter.alterId, alter.displayName ?? alter.username ?? `alter ${alter.alterId}`]));
    const lines = describeOperations(events, (id) => byId.get(id) ?? `alter ${id}`);
    if (lines.length === 0) return;
    // A DM channel by id: no need to fetch the user first.
    const channel = await client.users.createDM(userId);
    await channel.send({
      content: shortenGraphemes(`Changes to your system from other apps:\n${lines.join('\n')}`, 2000),
      components: [
        new ActionRowBuilder<ButtonBuilder>().addComponents(
          new ButtonBuilder().setCustomId(`${OPERATION_DM_PREFIX}off`).setLabel('Stop these messages').setStyle(ButtonStyle.Secondary),
        ),
      ],
    });
  }

  function schedule(delay: number): void {
    if (stopped) return;
    timer = setTimeout(() => {
      running = readFeed()
        .catch((error: unknown) => log.warn({ err: error }, 'reading the event feed failed; trying again'))
        .finally(() => schedule(interval));
    }, delay);
    timer.unref();
  }
  schedule(interval);
  // Taking the role reads at once (the first read after a move tells what was due).
  role.onChange((holds) => {
    log.info(
      { instance: coordination.instance },
      holds ? 'this process now sends the operation messages' : 'this process no longer sends the operation messages',
    );
    if (!holds || stopped) return;
    if (timer) clearTimeout(timer);
    running = running.then(() => schedule(0));
  });

  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
      // What waits for a quiet read stays in the store for the next holder.
    },
  };
}

/** The "Stop these messages" button: turns `systemOperationDM` off for whoever pressed it. */
export const operationDmButtons: ButtonHandler = {
  prefix: OPERATION_DM_PREFIX,
  async press(interaction: ButtonInteraction, { api, accounts }: BotContext) {
    await accounts.withToken(interaction.user.id, (token) => api.editSystem(token, { systemOperationDM: false }));
    await interaction.update({ components: [] });
    await interaction.followUp({ content: 'Done: you will not get these messages any more. `/system edit operation-messages:True` turns them back on.', flags: MessageFlags.Ephemeral });
  },
};
