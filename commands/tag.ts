// /tag create | edit | show | list | add | remove | delete: tags (PluralKit's groups) and their
// members. `tag` and `alter` options autocomplete and also take a typed name.
import { SlashCommandBuilder, type ChatInputCommandInteraction, type SlashCommandSubcommandBuilder } from 'discord.js';
import type { BotContext, SlashCommand } from '../src/bot/command.js';
import { alterName, tagEmbed, tagName } from '../src/bot/embeds.js';
import { tagPages } from '../src/bot/lists/tag-list.js';
import { CLEAR, requireAlter, requireTag, targetOf } from '../src/bot/options.js';
import type { Responder } from '../src/bot/responder.js';
import type { Tag } from '../src/domain/tag.js';
import { DESCRIPTION_MAX, NAME_MAX, URL_MAX } from '../src/domain/values.js';

const FIELDS = [
  ['display-name', 'displayName', 'Shown instead of the name', NAME_MAX],
  ['description', 'description', 'About the tag', DESCRIPTION_MAX],
  ['color', 'color', 'A color like #a1b2c3', 7],
  ['icon', 'icon', 'Icon image URL', URL_MAX],
] as const;

/** Privacy presets for the tag's bits: 1 visible, 2 name, 4 description, 8 icon, 16 color, 32 members. */
const PRIVACY: Record<string, number> = { public: 63, 'name-only': 1 | 2, private: 0 };

function addFieldOptions(sub: SlashCommandSubcommandBuilder, clearable: boolean): SlashCommandSubcommandBuilder {
  for (const [option, , description, max] of FIELDS) {
    sub.addStringOption((o) => o.setName(option).setDescription(clearable ? `${description} (- to clear)` : description).setMaxLength(max));
  }
  return sub.addStringOption((o) =>
    o
      .setName('privacy')
      .setDescription('Who else sees it (default private)')
      .addChoices({ name: 'public: the tag, its details and members', value: 'public' }, { name: 'name only', value: 'name-only' }, { name: 'private', value: 'private' }),
  );
}

function fieldPatch(interaction: ChatInputCommandInteraction, clearable: boolean): Record<string, string | number | null> {
  const patch: Record<string, string | number | null> = {};
  for (const [option, field] of FIELDS) {
    const value = interaction.options.getString(option);
    if (value !== null) patch[field] = clearable && value === CLEAR ? null : value;
  }
  const privacy = interaction.options.getString('privacy');
  if (privacy !== null && privacy in PRIVACY) patch.public = PRIVACY[privacy] ?? 0;
  return patch;
}

/** The tag's embed with its members' names (those the viewer may see). */
async function embedOf({ alters }: BotContext, viewerId: string, tag: Tag, target = '@me') {
  let names: string[] = [];
  if (tag.alterIds.length > 0) {
    const byId = new Map((await alters.all(viewerId, target).catch(() => [])).map((alter) => [alter.alterId, alter]));
    names = tag.alterIds.map((id) => {
      const alter = byId.get(id);
      return alter ? alterName(alter) : `Alter ${id}`;
    });
  }
  return tagEmbed(tag, names);
}

async function create(interaction: ChatInputCommandInteraction, context: BotContext, reply: Responder) {
  const { api, accounts, tags } = context;
  const body = { name: interaction.options.getString('name', true), ...fieldPatch(interaction, false) };
  const tag = await accounts.withToken(interaction.user.id, (token) => api.createTag(token, body));
  tags.invalidate(interaction.user.id);
  await reply.send({ content: `Created **${tagName(tag)}**. Add alters with \`/tag add\`.`, embeds: [await embedOf(context, interaction.user.id, tag)] });
}

async function edit(interaction: ChatInputCommandInteraction, context: BotContext, reply: Responder) {
  const { api, accounts, tags } = context;
  const tag = await requireTag(interaction, tags, 'tag');
  const patch: Record<string, string | number | null> = fieldPatch(interaction, true);
  const name = interaction.options.getString('name');
  if (name !== null) patch.name = name;
  if (Object.keys(patch).length === 0) {
    await reply.send({ content: 'Nothing to change: give at least one option.' });
    return;
  }
  const updated = await accounts.withToken(interaction.user.id, (token) => api.editTag(token, tag.tagId, patch));
  tags.invalidate(interaction.user.id);
  await reply.send({ content: `Updated **${tagName(updated)}**.`, embeds: [await embedOf(context, interaction.user.id, updated)] });
}

async function show(interaction: ChatInputCommandInteraction, context: BotContext, reply: Responder) {
  const { api, accounts, tags } = context;
  const target = targetOf(interaction);
  const chosen = await requireTag(interaction, tags, 'tag', target);
  const { data } = await accounts.withToken(interaction.user.id, (token) => api.getTag(token, target, chosen.tagId));
  await reply.send({ embeds: [await embedOf(context, interaction.user.id, data, target)] });
}

async function list(interaction: ChatInputCommandInteraction, context: BotContext, reply: Responder) {
  const target = targetOf(interaction);
  const title = target === '@me' ? 'Your tags' : `Tags of ${interaction.options.getUser('user')?.username ?? 'that user'}`;
  await reply.send(await tagPages.page(context, interaction.user.id, target, 0, title));
}

/** /tag add and /tag remove: one alter in or out of one tag. */
async function changeMembers(interaction: ChatInputCommandInteraction, context: BotContext, reply: Responder, adding: boolean) {
  const { api, accounts, alters, tags } = context;
  const tag = await requireTag(interaction, tags, 'tag');
  const alter = await requireAlter(interaction, alters, 'alter');
  const change = adding ? { add: [alter.alterId] } : { remove: [alter.alterId] };
  const updated = await accounts.withToken(interaction.user.id, (token) => api.changeTagMembers(token, tag.tagId, change));
  tags.invalidate(interaction.user.id);
  alters.invalidate(interaction.user.id);
  const wasMember = tag.alterIds.includes(alter.alterId);
  const what = adding ? (wasMember ? 'is already in' : 'is now in') : wasMember ? 'is no longer in' : 'was not in';
  await reply.send({ content: `**${alterName(alter)}** ${what} **${tagName(updated)}**.`, embeds: [await embedOf(context, interaction.user.id, updated)] });
}

async function remove(interaction: ChatInputCommandInteraction, { api, accounts, alters, tags }: BotContext, reply: Responder) {
  const tag = await requireTag(interaction, tags, 'tag');
  await accounts.withToken(interaction.user.id, (token) => api.deleteTag(token, tag.tagId));
  tags.invalidate(interaction.user.id);
  alters.invalidate(interaction.user.id);
  const count = tag.alterIds.length;
  await reply.send({ content: `Deleted the tag **${tagName(tag)}**${count > 0 ? ` (its ${count} ${count === 1 ? 'alter stays' : 'alters stay'})` : ''}.` });
}

const tagOption = (sub: SlashCommandSubcommandBuilder) => sub.addStringOption((o) => o.setName('tag').setDescription('Which tag').setRequired(true).setAutocomplete(true));
const alterOption = (sub: SlashCommandSubcommandBuilder) => sub.addStringOption((o) => o.setName('alter').setDescription('Which alter').setRequired(true).setAutocomplete(true));

type Subcommand = 'create' | 'edit' | 'show' | 'list' | 'add' | 'remove' | 'delete';

export const tag = {
  data: new SlashCommandBuilder()
    .setName('tag')
    .setDescription('Tags: named sets of your alters')
    .addSubcommand((sub) =>
      addFieldOptions(sub.setName('create').setDescription('Create a tag').addStringOption((o) => o.setName('name').setDescription('Unique in your system').setRequired(true).setMaxLength(NAME_MAX)), false),
    )
    .addSubcommand((sub) => addFieldOptions(tagOption(sub.setName('edit').setDescription('Edit one of your tags')).addStringOption((o) => o.setName('name').setDescription('New name').setMaxLength(NAME_MAX)), true))
    .addSubcommand((sub) => tagOption(sub.setName('show').setDescription('Show a tag and its members')).addUserOption((o) => o.setName('user').setDescription('Whose tag (default: yours)')))
    .addSubcommand((sub) => sub.setName('list').setDescription('List tags').addUserOption((o) => o.setName('user').setDescription('Whose tags (default: yours)')))
    .addSubcommand((sub) => alterOption(tagOption(sub.setName('add').setDescription('Add an alter to a tag'))))
    .addSubcommand((sub) => alterOption(tagOption(sub.setName('remove').setDescription('Take an alter out of a tag'))))
    .addSubcommand((sub) => tagOption(sub.setName('delete').setDescription('Delete a tag (its alters stay)'))),
  ephemeral: (interaction) => !['show', 'list'].includes(interaction.options.getSubcommand()),
  async execute(interaction, context, reply) {
    const subcommand = interaction.options.getSubcommand() as Subcommand;
    if (subcommand === 'add' || subcommand === 'remove') {
      await changeMembers(interaction, context, reply, subcommand === 'add');
      return;
    }
    const run = { create, edit, show, list, delete: remove }[subcommand];
    await run(interaction, context, reply);
  },
  async autocomplete(interaction, { alters, tags }) {
    const target = targetOf(interaction);
    const focused = interaction.options.getFocused(true);
    const directory = focused.name === 'alter' ? alters : tags;
    await interaction.respond(await directory.choices(interaction.user.id, focused.value, target));
  },
  buttons: [tagPages.buttons],
} satisfies SlashCommand;
