// /field create | edit | delete | list | order | set: the system's custom profile fields, and an
// alter's value of one. `field` and `alter` options autocomplete and also take a typed name.
import { EmbedBuilder, SlashCommandBuilder, type ChatInputCommandInteraction, type SlashCommandSubcommandBuilder } from 'discord.js';
import type { BotContext, SlashCommand } from '../src/bot/command.js';
import { alterEmbed, alterName, profileFieldText } from '../src/bot/embeds.js';
import { CLEAR, requireAlter, requireField, targetOf } from '../src/bot/options.js';
import type { Responder } from '../src/bot/responder.js';
import { shortenGraphemes } from '../src/domain/proxy/text.js';
import { MAX_PROFILE_FIELDS, PROFILE_FIELD_KIND_NAMES, PROFILE_FIELD_TEXT_MAX, type ProfileField, type ProfileFieldPrivacy } from '../src/domain/profile-fields.js';
import { NAME_MAX, URL_MAX } from '../src/domain/values.js';

/** What each kind holds, as a choice reads. */
const KIND_CHOICES: Record<(typeof PROFILE_FIELD_KIND_NAMES)[number], string> = {
  text: 'text',
  markdown: 'Markdown text',
  date: 'date (2024-07-21)',
  'month-day': 'day of the year (--07-21)',
  colour: 'colour (#a1b2c3)',
  link: 'link (https://…)',
};

/** The privacy levels offered (a subset of the alter bits a field may follow: the ones people pick). */
const PRIVACY_CHOICES: Array<[ProfileFieldPrivacy, string]> = [
  ['owner', 'only me'],
  ['everyone', 'everyone who sees the alter'],
  ['description', 'as the alter’s description'],
  ['pronouns', 'as the alter’s pronouns'],
  ['birthday', 'as the alter’s birthday'],
  ['name', 'as the alter’s name'],
];

const PRIVACY_WORDS = new Map<string, string>(PRIVACY_CHOICES);

function kindOption(sub: SlashCommandSubcommandBuilder, description: string): SlashCommandSubcommandBuilder {
  return sub.addStringOption((o) =>
    o
      .setName('kind')
      .setDescription(description)
      .addChoices(...PROFILE_FIELD_KIND_NAMES.map((kind) => ({ name: KIND_CHOICES[kind], value: kind }))),
  );
}

function privacyOption(sub: SlashCommandSubcommandBuilder, description: string): SlashCommandSubcommandBuilder {
  return sub.addStringOption((o) =>
    o
      .setName('privacy')
      .setDescription(description)
      .addChoices(...PRIVACY_CHOICES.map(([value, name]) => ({ name, value }))),
  );
}

const fieldOption = (sub: SlashCommandSubcommandBuilder) => sub.addStringOption((o) => o.setName('field').setDescription('Which field').setRequired(true).setAutocomplete(true));

/** One line of the list: its place, name, kind and who sees it. */
function fieldLine(field: ProfileField): string {
  return `${field.position + 1}. **${shortenGraphemes(field.name, NAME_MAX)}** · ${KIND_CHOICES[field.kind]} · ${PRIVACY_WORDS.get(field.privacy) ?? `as the alter’s ${field.privacy}`}`;
}

function listEmbed(fields: readonly ProfileField[], title: string): EmbedBuilder {
  return new EmbedBuilder()
    .setTitle(title)
    .setDescription(fields.length === 0 ? 'No profile fields yet: `/field create` makes one.' : fields.map(fieldLine).join('\n'))
    .setFooter({ text: `${fields.length} of ${MAX_PROFILE_FIELDS} fields` });
}

async function create(interaction: ChatInputCommandInteraction, { api, accounts, fields }: BotContext, reply: Responder) {
  const body: Record<string, string> = { name: interaction.options.getString('name', true) };
  for (const option of ['kind', 'privacy'] as const) {
    const value = interaction.options.getString(option);
    if (value !== null) body[option] = value;
  }
  const field = await accounts.withToken(interaction.user.id, (token) => api.createProfileField(token, body));
  fields.invalidate(interaction.user.id);
  await reply.send({ content: `Created the field **${field.name}** (${KIND_CHOICES[field.kind]}, seen by ${PRIVACY_WORDS.get(field.privacy) ?? field.privacy}). Fill it in with \`/field set\`.` });
}

async function edit(interaction: ChatInputCommandInteraction, { api, accounts, fields }: BotContext, reply: Responder) {
  const field = await requireField(interaction, fields, 'field');
  const patch: Record<string, string> = {};
  for (const [option, key] of [['name', 'name'], ['kind', 'kind'], ['privacy', 'privacy']] as const) {
    const value = interaction.options.getString(option);
    if (value !== null) patch[key] = value;
  }
  if (Object.keys(patch).length === 0) {
    await reply.send({ content: 'Nothing to change: give at least one option.' });
    return;
  }
  const updated = await accounts.withToken(interaction.user.id, (token) => api.editProfileField(token, field.fieldId, patch));
  fields.invalidate(interaction.user.id);
  const kindNote = updated.kind !== field.kind ? ' Values that are not valid as the new kind were removed.' : '';
  await reply.send({ content: `Updated the field: ${fieldLine(updated)}.${kindNote}` });
}

async function remove(interaction: ChatInputCommandInteraction, { api, accounts, alters, fields }: BotContext, reply: Responder) {
  const field = await requireField(interaction, fields, 'field');
  await accounts.withToken(interaction.user.id, (token) => api.deleteProfileField(token, field.fieldId));
  fields.invalidate(interaction.user.id);
  alters.invalidate(interaction.user.id);
  await reply.send({ content: `Deleted the field **${field.name}** and every alter’s value of it.` });
}

async function list(interaction: ChatInputCommandInteraction, { api, accounts }: BotContext, reply: Responder) {
  const target = targetOf(interaction);
  const title = target === '@me' ? 'Your profile fields' : `Profile fields of ${interaction.options.getUser('user')?.username ?? 'that user'}`;
  // Read fresh (not the directory's copy): the list is what was asked for.
  const found = await accounts.asViewer(interaction.user.id, target, (token) => api.listProfileFields(token, target));
  await reply.send({ embeds: [listEmbed(found, title)] });
}

/** Moves one field to a place in the order (1 is first). */
async function order(interaction: ChatInputCommandInteraction, { api, accounts, fields }: BotContext, reply: Responder) {
  const field = await requireField(interaction, fields, 'field');
  const ordered = await accounts.withToken(interaction.user.id, async (token) => {
    const current = await api.listProfileFields(token, '@me');
    const rest = current.filter((entry) => entry.fieldId !== field.fieldId).map((entry) => entry.fieldId);
    const place = Math.min(Math.max(interaction.options.getInteger('position', true), 1), rest.length + 1) - 1;
    rest.splice(place, 0, field.fieldId);
    return api.orderProfileFields(token, rest);
  });
  fields.invalidate(interaction.user.id);
  await reply.send({ content: `Moved **${field.name}**.`, embeds: [listEmbed(ordered, 'Your profile fields')] });
}

/** An alter's value of one field; `-` clears it. */
async function set(interaction: ChatInputCommandInteraction, { api, accounts, alters, fields }: BotContext, reply: Responder) {
  const alter = await requireAlter(interaction, alters, 'alter');
  const field = await requireField(interaction, fields, 'field');
  const typed = interaction.options.getString('value', true);
  const value = typed.trim() === CLEAR ? null : typed;
  const updated = await accounts.withToken(interaction.user.id, (token) => api.editAlter(token, alter.alterId, { profileFields: { [field.fieldId]: value } }));
  alters.invalidate(interaction.user.id);
  const stored = updated.profileFields[field.fieldId];
  const content = stored === undefined ? `Cleared **${field.name}** of **${alterName(updated)}**.` : `**${field.name}** of **${alterName(updated)}**: ${profileFieldText(field, stored)}`;
  const profileFields = await fields.ordered(interaction.user.id);
  await reply.send({ content: shortenGraphemes(content, 2000), embeds: [alterEmbed(updated, { owner: true, profileFields })] });
}

type Subcommand = 'create' | 'edit' | 'delete' | 'list' | 'order' | 'set';

export const field = {
  data: new SlashCommandBuilder()
    .setName('field')
    .setDescription('Custom profile fields: your own fields on every alter’s card')
    .addSubcommand((sub) =>
      privacyOption(
        kindOption(
          sub
            .setName('create')
            .setDescription('Create a profile field')
            .addStringOption((o) => o.setName('name').setDescription('Unique in your system').setRequired(true).setMaxLength(NAME_MAX)),
          'What it holds (default text)',
        ),
        'Who else sees its values (default only you)',
      ),
    )
    .addSubcommand((sub) =>
      privacyOption(
        kindOption(
          fieldOption(sub.setName('edit').setDescription('Rename a field, or change its kind or privacy')).addStringOption((o) => o.setName('name').setDescription('New name').setMaxLength(NAME_MAX)),
          'New kind (values not valid as it are removed)',
        ),
        'Who else sees its values',
      ),
    )
    .addSubcommand((sub) => fieldOption(sub.setName('delete').setDescription('Delete a field and every alter’s value of it')))
    .addSubcommand((sub) => sub.setName('list').setDescription('List profile fields in their order').addUserOption((o) => o.setName('user').setDescription('Whose fields (default: yours)')))
    .addSubcommand((sub) =>
      fieldOption(sub.setName('order').setDescription('Move a field to another place on the cards')).addIntegerOption((o) =>
        o.setName('position').setDescription('Its new place: 1 is first').setRequired(true).setMinValue(1).setMaxValue(MAX_PROFILE_FIELDS),
      ),
    )
    .addSubcommand((sub) =>
      fieldOption(sub.setName('set').setDescription('Set an alter’s value of a field').addStringOption((o) => o.setName('alter').setDescription('Which alter').setRequired(true).setAutocomplete(true))).addStringOption((o) =>
        o
          .setName('value')
          .setDescription('The value (- to clear)')
          .setRequired(true)
          .setMaxLength(Math.max(PROFILE_FIELD_TEXT_MAX, URL_MAX)),
      ),
    ),
  ephemeral: (interaction) => interaction.options.getSubcommand() !== 'list',
  fieldWords: { profileFields: 'value', name: 'name', kind: 'kind', privacy: 'privacy', fieldIds: 'position' },
  async execute(interaction, context, reply) {
    const subcommand = interaction.options.getSubcommand() as Subcommand;
    const run = { create, edit, delete: remove, list, order, set }[subcommand];
    await run(interaction, context, reply);
  },
  async autocomplete(interaction, { alters, fields }) {
    const focused = interaction.options.getFocused(true);
    const directory = focused.name === 'alter' ? alters : fields;
    await interaction.respond(await directory.choices(interaction.user.id, focused.value));
  },
} satisfies SlashCommand;
