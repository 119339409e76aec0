// /reproxy alter [message]: re-sends one of your proxied messages as another alter: your last one in
// this channel (within 5 minutes), or the one a message link names (within the last hour; the
// "Reproxy message" context menu does the same from the message). The new one is sent first, then
// the old one deleted, then the record moved.
import { SlashCommandBuilder, type Message, type RepliableInteraction } from 'discord.js';
import { ApiError } from '../src/bot/api-client.js';
import type { BotContext, SlashCommand } from '../src/bot/command.js';
import { alterName } from '../src/bot/embeds.js';
import { requireAlter } from '../src/bot/options.js';
import { downloadAttachments } from '../src/bot/proxy/attachments.js';
import { deleteProxied } from '../src/bot/proxy/reactions.js';
import { REPROXY_WINDOW_MS, type RecentMessage } from '../src/bot/proxy/recent.js';
import { REPROXY_TARGET_WINDOW_MS, namedTarget, parseMessageRef } from '../src/bot/proxy/reproxy-target.js';
import { sendThroughWebhook } from '../src/bot/proxy/sender.js';
import { webhookName } from '../src/bot/proxy/webhook-name.js';
import { interactionRoleIds } from '../src/bot/servers/may-manage-server.js';
import { placeOfChannel, refusalText } from '../src/bot/servers/rules.js';
import type { Alter } from '../src/domain/alter.js';
import { mayProxyHere } from '../src/domain/guild-rules.js';

/** The message a link (or id) names, fetched from Discord; a friendly refusal when there is none. */
export async function fetchNamed(interaction: RepliableInteraction, ref: string): Promise<Message> {
  const guildId = interaction.guildId;
  const place = guildId ? parseMessageRef(ref, { guildId, channelId: interaction.channelId ?? '' }) : undefined;
  if (!place) throw new ApiError('problem', 400, 'validation', 'Give a message link from this server (right-click the message → Copy Message Link), or a message id from this channel.', 'message');
  const channel = await interaction.client.channels.fetch(place.channelId).catch(() => null);
  const message = channel?.isTextBased() ? await channel.messages.fetch(place.messageId).catch(() => null) : null;
  if (!message) throw new ApiError('problem', 404, 'unknown-message', 'That message cannot be found (deleted, or in a channel the bot cannot see).', 'message');
  return message;
}

/**
 * Re-sends `target` as `chosen` and moves its record; the answer to give. `source` is the message
 * itself when it was fetched (its attachments and channel), else it is fetched here.
 */
export async function reproxyAs(
  interaction: RepliableInteraction,
  { api, accounts, proxying }: BotContext,
  target: RecentMessage,
  chosen: Alter,
  source?: Message,
): Promise<string> {
  const guildId = interaction.guildId;
  if (!guildId || guildId !== target.guildId) throw new ApiError('problem', 400, 'validation', 'Use this in the server of the message.');
  const profile = await proxying.profiles.get(interaction.user.id, guildId);
  const alter = profile?.alters.find((candidate) => candidate.alterId === chosen.alterId);
  if (!profile || !alter) throw new ApiError('problem', 404, 'unknown-alter', 'That alter cannot proxy here.');
  const username = webhookName({
    name: alter.name,
    pronouns: profile.showPronouns ? alter.pronouns : null,
    displayTag: profile.displayTag,
    fallback: alter.username,
  });
  // The server's rules apply to a re-sent message as to any other (a block set since, say), in the message's own channel.
  const server = await proxying.servers.atRevision(guildId, proxying.profiles.guildRevision(guildId));
  if (!server) throw new ApiError('unavailable', 503, 'unavailable', 'switchboard cannot be reached right now. Try again in a moment.');
  const channel = source?.channel ?? (await interaction.client.channels.fetch(target.channelId).catch(() => null)) ?? interaction.channel;
  if (channel && interaction.inGuild()) {
    const verdict = mayProxyHere(
      server.rules,
      placeOfChannel(channel),
      { userId: interaction.user.id, roleIds: interactionRoleIds(interaction) },
      { name: username, displayTags: [profile.displayTag] },
    );
    if (!verdict.allowed) throw new ApiError('problem', 403, 'validation', refusalText(verdict, interaction.guild?.name ?? 'this server', target.channelId));
  }
  if (alter.alterId === target.alterId) return `That message is already sent as **${alterName(chosen)}**.`;
  // Attachments go with it: they live on the message being replaced.
  const previous = source ?? (channel?.isTextBased() ? await channel.messages.fetch(target.messageId).catch(() => undefined) : undefined);
  const { files } = previous?.inGuild() ? await downloadAttachments(previous) : { files: [] };
  const sent = await sendThroughWebhook(proxying.webhookRest, proxying.webhooks, {
    webhookChannelId: target.webhookChannelId,
    threadId: target.threadId,
    content: target.content,
    username,
    avatarUrl: alter.avatarUrl,
    // The first send already pinged whoever it pinged.
    allowedMentions: { parse: [] },
    embeds: [],
    files,
  });
  // Deleted through the webhook that sent it (no permission needed), as for a remembered message.
  if (!proxying.recent.get(target.messageId)) proxying.recent.remember(target);
  const old = { id: target.messageId, channelId: target.channelId, delete: () => Promise.resolve() };
  await deleteProxied(proxying.webhookRest, proxying.recent, old).catch(() => undefined);
  proxying.recent.replace(target.messageId, { ...target, messageId: sent.message.id, webhook: sent.webhook, alterId: alter.alterId, sentAt: target.sentAt });
  const move = { messageId: sent.message.id, alterId: alter.alterId, proxiedName: sent.message.author.username };
  proxying.deliveries.push({
    what: 'reproxy record',
    send: () => accounts.withToken(interaction.user.id, (token) => api.reproxyMessage(token, target.messageId, move)),
    // The first record may still be on its way to the service.
    retryAlso: (error) => error instanceof ApiError && error.type === 'unknown-message',
  });
  return `Re-sent as **${alterName(chosen)}**.`;
}

export const reproxy = {
  data: new SlashCommandBuilder()
    .setName('reproxy')
    .setDescription(`Re-send one of your proxied messages as another alter (default: your last one here)`)
    .addStringOption((o) => o.setName('alter').setDescription('The alter it should have been').setRequired(true).setAutocomplete(true))
    .addStringOption((o) =>
      o.setName('message').setDescription(`A link to one of your proxied messages of the last ${REPROXY_TARGET_WINDOW_MS / 60_000} minutes (default: your last one here)`).setMaxLength(200),
    ),
  ephemeral: true,
  fieldWords: { message: 'message' },
  async execute(interaction, context, reply) {
    const { alters, api, accounts, proxying } = context;
    if (!interaction.guildId) throw new ApiError('problem', 400, 'validation', 'Use this in the server of the message.');
    const ref = interaction.options.getString('message');
    let target: RecentMessage | undefined;
    let source: Message | undefined;
    if (ref === null) {
      target = proxying.recent.lastOf(interaction.user.id, interaction.channelId);
      if (!target) throw new ApiError('problem', 404, 'unknown-message', `You have no proxied message here from the last ${REPROXY_WINDOW_MS / 60_000} minutes. Name an older one (up to an hour) with \`message:\` and its link.`);
    } else {
      source = await fetchNamed(interaction, ref);
      target = await namedTarget({ api, accounts, recent: proxying.recent, webhooks: proxying.webhooks }, source, interaction.user.id);
    }
    const chosen = await requireAlter(interaction, alters, 'alter');
    await reply.send({ content: await reproxyAs(interaction, context, target, chosen, source) });
  },
  async autocomplete(interaction, { alters }) {
    await interaction.respond(await alters.choices(interaction.user.id, interaction.options.getFocused()));
  },
} satisfies SlashCommand;
