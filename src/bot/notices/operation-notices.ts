// Direct messages that tell owners when another app changed their system (the origin's
// `systemOperationDM`, on by default): which app, and what it did, with a button that turns them
// off. The bot learns of changes the way any integration can: it reads the service's event feed
// for its own client (`GET /v1/events/feed`, the events of users who authorized it, as their
// grants let it see them), so it needs no inbound port. Changes the bot made itself are not
// reported; changes close together are one message per owner (notice-batches.ts says when).
//
// Best effort by design: the feed position lives in memory and starts at "now" when the bot
// starts, so changes made while no bot ran are not reported (they are history, not news). With
// several bot processes only the one holding shard 0 reads the feed, so owners get one message.
import { ActionRowBuilder, ButtonBuilder, ButtonStyle, MessageFlags, type ButtonInteraction, type Client } from 'discord.js';
import { shortenGraphemes } from '../../domain/proxy/text.js';
import type { ApiClient, FeedEvent } from '../api-client.js';
import type { BotContext, ButtonHandler } from '../command.js';
import type { BotLog } from '../log.js';
import type { LinkedAccounts } from '../links/linked-accounts.js';
import { NoticeBatches, type NoticeBatch } from './notice-batches.js';
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

export function startOperationNotices(deps: { client: Client; api: ApiClient; accounts: LinkedAccounts; alters: Directory; log: BotLog; intervalMs?: number }): OperationNotices {
  const { client, api, accounts, alters, log } = deps;
  const interval = deps.intervalMs ?? DEFAULT_NOTICE_INTERVAL_MS;
  let cursor: string | undefined;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const batches = new NoticeBatches(MAX_HELD_READS);

  async function readFeed(): Promise<void> {
    if (cursor === undefined) {
      cursor = (await api.eventFeed(undefined, PAGE)).next;
      return;
    }
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
    await tell(batches.endRead());
  }

  async function tell(due: NoticeBatch[]): Promise<void> {
    for (const { userId, events } of due) await notify(userId, events).catch((error: unknown) => log.info({ err: error, user: userId }, 'could not send an operation notice'));
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
      components: [new ActionRowBuilder<ButtonBuilder>().addComponents(new ButtonBuilder().setCustomId(`${OPERATION_DM_PREFIX}off`).setLabel('Stop these messages').setStyle(ButtonStyle.Secondary))],
    });
  }

  function schedule(): void {
    if (stopped) return;
    timer = setTimeout(() => {
      running = readFeed()
        .catch((error: unknown) => log.warn({ err: error }, 'reading the event feed failed; trying again'))
        .finally(schedule);
    }, cursor === undefined ? 0 : interval);
    timer.unref();
  }
  schedule();

  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
      // What was waiting for a quiet read is news all the same.
      await tell(batches.drain());
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
