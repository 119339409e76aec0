// /reproxy alter: re-sends your last proxied message in this channel (within 5 minutes) as another
// alter: the new one is sent first, then the old one deleted, then the record moved.
import { SlashCommandBuilder } from 'discord.js';
import { ApiError } from '../src/bot/api-client.js';
import type { SlashCommand } from '../src/bot/command.js';
import { alterName } from '../src/bot/embeds.js';
import { requireAlter } from '../src/bot/options.js';
import { downloadAttachments } from '../src/bot/proxy/attachments.js';
import { deleteProxied } from '../src/bot/proxy/reactions.js';
import { REPROXY_WINDOW_MS } from '../src/bot/proxy/recent.js';
import { sendThroughWebhook } from '../src/bot/proxy/sender.js';
import { webhookName } from '../src/bot/proxy/webhook-name.js';
import { interactionRoleIds } from '../src/bot/servers/may-manage-server.js';
import { placeOfChannel, refusalText } from '../src/bot/servers/rules.js';
import { mayProxyHere } from '../src/domain/guild-rules.js';

export const reproxy = {
  data: new SlashCommandBuilder()
    .setName('reproxy')
    .setDescription(`Re-send your last proxied message here (within ${REPROXY_WINDOW_MS / 60_000} minutes) as another alter`)
    .addStringOption((o) => o.setName('alter').setDescription('The alter it should have been').setRequired(true).setAutocomplete(true)),
  ephemeral: true,
  async execute(interaction, { api, accounts, alters, proxying }, reply) {
    const guildId = interaction.guildId;
    if (!guildId) throw new ApiError('problem', 400, 'validation', 'Use this in the channel of the message.');
    const last = proxying.recent.lastOf(interaction.user.id, interaction.channelId);
    if (!last) throw new ApiError('problem', 404, 'unknown-message', `You have no proxied message here from the last ${REPROXY_WINDOW_MS / 60_000} minutes.`);
    const chosen = await requireAlter(interaction, alters, 'alter');
    const profile = await proxying.profiles.get(interaction.user.id, guildId);
    const alter = profile?.alters.find((candidate) => candidate.alterId === chosen.alterId);
    if (!profile || !alter) throw new ApiError('problem', 404, 'unknown-alter', 'That alter cannot proxy here.');
    const username = webhookName({ name: alter.name, pronouns: profile.showPronouns ? alter.pronouns : null, displayTag: profile.displayTag, fallback: alter.username });
    // The server's rules apply to a re-sent message as to any other (a block set since, say).
    const server = await proxying.servers.atRevision(guildId, proxying.profiles.guildRevision(guildId));
    if (!server) throw new ApiError('unavailable', 503, 'unavailable', 'switchboard cannot be reached right now. Try again in a moment.');
    if (interaction.channel && interaction.inGuild()) {
      const verdict = mayProxyHere(server.rules, placeOfChannel(interaction.channel), { userId: interaction.user.id, roleIds: interactionRoleIds(interaction) }, { name: username, displayTags: [profile.displayTag] });
      if (!verdict.allowed) throw new ApiError('problem', 403, 'validation', refusalText(verdict, interaction.guild?.name ?? 'this server', interaction.channelId));
    }
    if (alter.alterId === last.alterId) {
      await reply.send({ content: `That message is already sent as **${alterName(chosen)}**.` });
      return;
    }
    // Attachments go with it: they live on the message being replaced.
    const previous = interaction.channel ? await interaction.channel.messages.fetch(last.messageId).catch(() => undefined) : undefined;
    const { files } = previous?.inGuild() ? await downloadAttachments(previous) : { files: [] };
    const sent = await sendThroughWebhook(proxying.webhookRest, proxying.webhooks, {
      webhookChannelId: last.webhookChannelId,
      threadId: last.threadId,
      content: last.content,
      username,
      avatarUrl: alter.avatarUrl,
      // The first send already pinged whoever it pinged.
      allowedMentions: { parse: [] },
      embeds: [],
      files,
    });
    const old = { id: last.messageId, channelId: last.channelId, delete: () => Promise.resolve() };
    await deleteProxied(proxying.webhookRest, proxying.recent, old).catch(() => undefined);
    proxying.recent.replace(last.messageId, { ...last, messageId: sent.message.id, webhook: sent.webhook, alterId: alter.alterId, sentAt: last.sentAt });
    const move = { messageId: sent.message.id, alterId: alter.alterId, proxiedName: sent.message.author.username };
    proxying.deliveries.push({
      what: 'reproxy record',
      send: () => accounts.withToken(interaction.user.id, (token) => api.reproxyMessage(token, last.messageId, move)),
      // The first record may still be on its way to the service.
      retryAlso: (error) => error instanceof ApiError && error.type === 'unknown-message',
    });
    await reply.send({ content: `Re-sent as **${alterName(chosen)}**.` });
  },
  async autocomplete(interaction, { alters }) {
    await interaction.respond(await alters.choices(interaction.user.id, interaction.options.getFocused()));
  },
} satisfies SlashCommand;
