// /proxy tag-add | tag-remove | tags | server: an alter's proxy tags, and proxying in this server.
import { SlashCommandBuilder, type ChatInputCommandInteraction, type SlashCommandStringOption } from 'discord.js';
import type { BotContext, SlashCommand } from '../src/bot/command.js';
import { alterName } from '../src/bot/embeds.js';
import { requireAlter } from '../src/bot/options.js';
import type { Responder } from '../src/bot/responder.js';
import { ApiError } from '../src/bot/api-client.js';
import { NAME_MAX } from '../src/domain/values.js';

const shown = (tag: { prefix: string | null; suffix: string | null }) => `\`${tag.prefix ?? ''}text${tag.suffix ?? ''}\``;

async function addTag(interaction: ChatInputCommandInteraction, { api, accounts, alters }: BotContext, reply: Responder) {
  const alter = await requireAlter(interaction, alters, 'alter');
  const prefix = interaction.options.getString('prefix') ?? '';
  const suffix = interaction.options.getString('suffix') ?? '';
  if (prefix.trim() === '' && suffix.trim() === '') throw new ApiError('problem', 400, 'validation', 'Give a prefix, a suffix, or both (for example prefix `k:`).', 'prefix');
  if (alter.proxyTags.some((tag) => (tag.prefix ?? '') === prefix && (tag.suffix ?? '') === suffix)) {
    await reply.send({ content: `**${alterName(alter)}** already has ${shown({ prefix, suffix })}.` });
    return;
  }
  const proxyTags = [...alter.proxyTags, { prefix: prefix || null, suffix: suffix || null }];
  const updated = await accounts.withToken(interaction.user.id, (token) => api.editAlter(token, alter.alterId, { proxyTags }));
  alters.invalidate(interaction.user.id);
  await reply.send({ content: `**${alterName(updated)}** now proxies with ${updated.proxyTags.map(shown).join(', ')}. Try it: ${shown({ prefix, suffix }).replace('text', 'hello')}` });
}

async function removeTag(interaction: ChatInputCommandInteraction, { api, accounts, alters }: BotContext, reply: Responder) {
  const alter = await requireAlter(interaction, alters, 'alter');
  const prefix = interaction.options.getString('prefix') ?? '';
  const suffix = interaction.options.getString('suffix') ?? '';
  const remaining = alter.proxyTags.filter((tag) => !((tag.prefix ?? '') === prefix && (tag.suffix ?? '') === suffix));
  if (remaining.length === alter.proxyTags.length) {
    await reply.send({ content: `**${alterName(alter)}** has no tag ${shown({ prefix, suffix })}. Its tags: ${alter.proxyTags.map(shown).join(', ') || 'none'}.` });
    return;
  }
  await accounts.withToken(interaction.user.id, (token) => api.editAlter(token, alter.alterId, { proxyTags: remaining }));
  alters.invalidate(interaction.user.id);
  await reply.send({ content: `Removed ${shown({ prefix, suffix })} from **${alterName(alter)}**.` });
}

async function listTags(interaction: ChatInputCommandInteraction, { alters }: BotContext, reply: Responder) {
  const alter = await requireAlter(interaction, alters, 'alter');
  await reply.send({ content: alter.proxyTags.length > 0 ? `**${alterName(alter)}**: ${alter.proxyTags.map(shown).join(', ')}` : `**${alterName(alter)}** has no proxy tags yet.` });
}

async function server(interaction: ChatInputCommandInteraction, { api, accounts }: BotContext, reply: Responder) {
  const guildId = interaction.guildId;
  if (!guildId) throw new ApiError('problem', 400, 'validation', 'Use this in the server where proxying should change.');
  const enabled = interaction.options.getBoolean('enabled', true);
  await accounts.withToken(interaction.user.id, async (token) => {
    const system = await api.getSystem(token, '@me');
    const others = system.disabledGuilds.filter((id) => id !== guildId);
    await api.editSystem(token, { disabledGuilds: enabled ? others : [...others, guildId] });
  });
  await reply.send({ content: enabled ? 'Proxying is on in this server.' : 'Proxying is off in this server: your messages here stay as you type them.' });
}

const alterOption = (o: SlashCommandStringOption) => o.setName('alter').setDescription('The alter').setRequired(true).setAutocomplete(true);

export const proxy = {
  data: new SlashCommandBuilder()
    .setName('proxy')
    .setDescription('Proxy tags, and proxying in this server')
    .addSubcommand((s) =>
      s
        .setName('tag-add')
        .setDescription('Add a proxy tag: a message starting with the prefix and ending with the suffix is sent as the alter')
        .addStringOption(alterOption)
        .addStringOption((o) => o.setName('prefix').setDescription('Text before the message, e.g. k:').setMaxLength(NAME_MAX))
        .addStringOption((o) => o.setName('suffix').setDescription('Text after the message, e.g. -k').setMaxLength(NAME_MAX)),
    )
    .addSubcommand((s) =>
      s
        .setName('tag-remove')
        .setDescription('Remove a proxy tag')
        .addStringOption(alterOption)
        .addStringOption((o) => o.setName('prefix').setDescription('The tag’s prefix').setMaxLength(NAME_MAX))
        .addStringOption((o) => o.setName('suffix').setDescription('The tag’s suffix').setMaxLength(NAME_MAX)),
    )
    .addSubcommand((s) => s.setName('tags').setDescription('Show an alter’s proxy tags').addStringOption(alterOption))
    .addSubcommand((s) =>
      s
        .setName('server')
        .setDescription('Turn proxying on or off for you in this server')
        .addBooleanOption((o) => o.setName('enabled').setDescription('Whether your messages here are proxied').setRequired(true)),
    ),
  ephemeral: true,
  fieldWords: { 'proxyTags.prefix': 'prefix', 'proxyTags.suffix': 'suffix' },
  async execute(interaction, context, reply) {
    const run = { 'tag-add': addTag, 'tag-remove': removeTag, tags: listTags, server }[interaction.options.getSubcommand()];
    if (run) await run(interaction, context, reply);
  },
  async autocomplete(interaction, { alters }) {
    await interaction.respond(await alters.choices(interaction.user.id, interaction.options.getFocused()));
  },
} satisfies SlashCommand;
