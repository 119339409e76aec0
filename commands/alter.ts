// /alter create | edit | show | list | random | privacy | delete. Deleting asks first: a private message with Delete
// and Cancel buttons that only the person who ran the command can press. The list sorts, filters by
// tag and searches through the API (which applies the owner's privacy to all three).
import { randomInt } from 'node:crypto';
import {
  ActionRowBuilder,
  ButtonBuilder,
  ButtonStyle,
  MessageFlags,
  SlashCommandBuilder,
  type ButtonInteraction,
  type ChatInputCommandInteraction,
  type SlashCommandSubcommandBuilder,
} from 'discord.js';
import { ApiError } from '../src/bot/api-client.js';
import type { BotContext, ButtonHandler, SlashCommand } from '../src/bot/command.js';
import { alterEmbed, alterName } from '../src/bot/embeds.js';
import { alterPages, encodeListState } from '../src/bot/lists/alter-list.js';
import { fieldWordsOf } from '../src/bot/error-wording.js';
import { addImageFileOptions, copiedNote, fileOptionOf, imagePatch, type ImageOption } from '../src/bot/images/hosted-image.js';
import { CLEAR, requireAlter, requireTag, targetOf } from '../src/bot/options.js';
import { ALTER_PRIVACY, addPrivacyOptions, chosenPrivacy } from '../src/bot/privacy-settings.js';
import { addAlterProxyOptions, addAlterServerOptions, ALTER_PROXY_WORDS, alterProxyPatch, alterServerPatch } from '../src/bot/settings/alter-settings.js';
import { chosenServer, SERVER_OPTION, serverChoices, serverName } from '../src/bot/settings/servers.js';
import type { Responder } from '../src/bot/responder.js';
import type { AlterSort } from '../src/domain/alter-list.js';
import { AlterPrivacy, SystemPrivacy } from '../src/domain/privacy-bits.js';
import { DESCRIPTION_MAX, NAME_MAX, URL_MAX } from '../src/domain/values.js';

const FIELDS = [
  ['pronouns', 'pronouns', 'Pronouns', NAME_MAX],
  ['description', 'description', 'About the alter', DESCRIPTION_MAX],
  ['color', 'color', 'A color like #a1b2c3', 7],
  ['avatar', 'avatarUrl', 'Avatar image URL', URL_MAX],
  ['birthday', 'birthday', 'Birthday: 1990-05-17, or --05-17 without a year', 10],
] as const;

/** An alter left out of front and latch autoproxy still proxies with its tags (PluralKit's per-member autoproxy off). */
const AUTOPROXY_OPTION = 'autoproxy';

/** Options that are not in FIELDS (create makes the names required; banner is edit's alone): option, API field. */
const OTHER_OPTIONS = [
  ['username', 'username'],
  ['display-name', 'displayName'],
  ['banner', 'banner'],
] as const;

/** The image fields: a link, or a file beside it (copied to the service); create takes the avatar alone. */
const EDIT_IMAGES: readonly ImageOption[] = [
  { option: 'avatar', field: 'avatarUrl', purpose: 'avatar', label: 'avatar' },
  { option: 'banner', field: 'banner', purpose: 'banner', label: 'banner' },
  { option: 'proxy-avatar', field: 'webhookAvatarUrl', purpose: 'avatar', label: 'proxy avatar' },
];
const CREATE_IMAGES = EDIT_IMAGES.slice(0, 1);

/** `patch` with its image fields left to imagePatch, and whether the command was given any image. */
function withoutImages(interaction: ChatInputCommandInteraction, patch: Record<string, string | null>, images: readonly ImageOption[]) {
  const fields = new Set(images.map((image) => image.field));
  const rest = Object.fromEntries(Object.entries(patch).filter(([field]) => !fields.has(field)));
  const given = images.some(({ option }) => interaction.options.get(option) !== null || interaction.options.get(fileOptionOf(option)) !== null);
  return { rest, given };
}

/** What the service calls each option, for errors in the user's words (keep beside the options above). */
const FIELD_WORDS = { ...fieldWordsOf(FIELDS), ...fieldWordsOf(OTHER_OPTIONS), ...ALTER_PROXY_WORDS, autoproxyEnabled: AUTOPROXY_OPTION, public: 'privacy' };

/** Whether the owner's system shows its alters to others at all (for the owner's cards). */
async function systemShowsAlters({ api, accounts }: BotContext, userId: string): Promise<boolean | undefined> {
  const system = await accounts.withToken(userId, (token) => api.getSystem(token, '@me')).catch(() => undefined);
  return system && (system.public & SystemPrivacy.alters) === SystemPrivacy.alters;
}

function addFieldOptions(sub: SlashCommandSubcommandBuilder, clearable: boolean): SlashCommandSubcommandBuilder {
  for (const [option, , description, max] of FIELDS) {
    sub.addStringOption((o) => o.setName(option).setDescription(clearable ? `${description} (- to clear)` : description).setMaxLength(max));
  }
  return sub;
}

function fieldPatch(interaction: ChatInputCommandInteraction, clearable: boolean): Record<string, string | null> {
  const patch: Record<string, string | null> = {};
  for (const [option, field] of FIELDS) {
    const value = interaction.options.getString(option);
    if (value !== null) patch[field] = clearable && value === CLEAR ? null : value;
  }
  return patch;
}

async function create(interaction: ChatInputCommandInteraction, context: BotContext, reply: Responder) {
  const { api, accounts, alters } = context;
  const { rest } = withoutImages(interaction, fieldPatch(interaction, false), CREATE_IMAGES);
  const { alter, copied } = await accounts.withToken(interaction.user.id, async (token) => {
    const images = await imagePatch(interaction, context, token, CREATE_IMAGES);
    const body = { username: interaction.options.getString('username', true), displayName: interaction.options.getString('display-name', true), ...rest, ...images.patch };
    return { alter: await api.createAlter(token, body), copied: images.copied };
  });
  alters.invalidate(interaction.user.id);
  // New alters are private (the origin's default): the owner is told, with the one step that changes it.
  const hidden = (alter.public & AlterPrivacy.visible) === 0 ? ` Only you can see it for now: \`/alter privacy alter:${alter.username ?? alter.alterId} all:public\` shows it to others.` : '';
  await reply.send({ content: `Created **${alterName(alter)}**.${hidden}${copiedNote(copied)}`, embeds: [alterEmbed(alter, { owner: true, systemShowsAlters: await systemShowsAlters(context, interaction.user.id) })] });
}

async function edit(interaction: ChatInputCommandInteraction, context: BotContext, reply: Responder) {
  const { api, accounts, alters } = context;
  const alter = await requireAlter(interaction, alters, 'alter');
  const typed: Record<string, string | null> = { ...fieldPatch(interaction, true), ...alterProxyPatch(interaction) };
  for (const [option, field] of OTHER_OPTIONS) {
    const value = interaction.options.getString(option);
    if (value !== null) typed[field] = field === 'banner' && value === CLEAR ? null : value;
  }
  const { rest, given } = withoutImages(interaction, typed, EDIT_IMAGES);
  const autoproxy = interaction.options.getBoolean(AUTOPROXY_OPTION);
  const patch: Record<string, string | boolean | null> = autoproxy === null ? rest : { ...rest, autoproxyEnabled: autoproxy };
  if (Object.keys(patch).length === 0 && !given) {
    await reply.send({ content: 'Nothing to change: give at least one option.' });
    return;
  }
  const { updated, copied } = await accounts.withToken(interaction.user.id, async (token) => {
    const images = await imagePatch(interaction, context, token, EDIT_IMAGES);
    return { updated: await api.editAlter(token, alter.alterId, { ...patch, ...images.patch }), copied: images.copied };
  });
  alters.invalidate(interaction.user.id);
  const profileFields = await context.fields.ordered(interaction.user.id);
  await reply.send({ content: `Updated **${alterName(updated)}**.${copiedNote(copied)}`, embeds: [alterEmbed(updated, { owner: true, client: interaction.client, profileFields })] });
}

/** Shows or changes an alter's name and avatar in one server (the one it runs in, or the one named). */
async function server(interaction: ChatInputCommandInteraction, { api, accounts, alters }: BotContext, reply: Responder) {
  const chosen = await requireAlter(interaction, alters, 'alter');
  const serverId = chosenServer(interaction);
  const { shown, changed } = await accounts.withToken(interaction.user.id, async (token) => {
    const { data: current } = await api.getAlter(token, '@me', chosen.alterId);
    const patch = alterServerPatch(interaction, current, serverId);
    if (Object.keys(patch).length === 0) return { shown: current, changed: false };
    return { shown: await api.editAlter(token, current.alterId, patch), changed: true };
  });
  if (changed) alters.invalidate(interaction.user.id);
  const name = shown.nameMap.find((entry) => entry.server === serverId)?.name;
  const avatar = shown.avatarUrlMap[serverId];
  const where = serverName(interaction.client, serverId);
  const lines = [
    `**${alterName(shown)}** in **${where}**:`,
    `Name: ${name ?? `${shown.displayName ?? shown.username ?? ''} (its usual one)`}`,
    `Avatar: ${avatar ?? 'its usual one'}`,
  ];
  await reply.send({ content: `${changed ? 'Saved. ' : ''}${lines.join('\n')}` });
}

/** Another user's alter needs no link (public data through the bot's own client); one's own does. */
async function show(interaction: ChatInputCommandInteraction, { api, accounts, alters, tags, fields }: BotContext, reply: Responder) {
  const target = targetOf(interaction);
  const chosen = await requireAlter(interaction, alters, 'alter', target);
  const { isSelf, data } = await accounts.asViewer(interaction.user.id, target, (token) => api.getAlter(token, target, chosen.alterId));
  const [tagNames, profileFields] = await Promise.all([tags.names(interaction.user.id, data.tagIds, target), fields.ordered(interaction.user.id, target)]);
  await reply.send({ embeds: [alterEmbed(data, { owner: isSelf, tagNames, profileFields })] });
}

/** Shows or changes what others see of one alter; without options, just shows it. */
async function privacy(interaction: ChatInputCommandInteraction, context: BotContext, reply: Responder) {
  const { api, accounts, alters } = context;
  const chosen = await requireAlter(interaction, alters, 'alter');
  // Read fresh: the directory's copy may be up to 30 s old, and the change starts from what is stored.
  const { shown, changed } = await accounts.withToken(interaction.user.id, async (token) => {
    const { data: current } = await api.getAlter(token, '@me', chosen.alterId);
    const wanted = chosenPrivacy((option) => interaction.options.getString(option), ALTER_PRIVACY, current.public);
    if (wanted === undefined || wanted === current.public) return { shown: current, changed: false };
    return { shown: await api.editAlter(token, current.alterId, { public: wanted }), changed: true };
  });
  if (changed) alters.invalidate(interaction.user.id);
  const content = changed ? `Privacy of **${alterName(shown)}** saved: the card below says what others see.` : `What others see of **${alterName(shown)}** is under “Privacy” below.`;
  await reply.send({ content, embeds: [alterEmbed(shown, { owner: true, systemShowsAlters: await systemShowsAlters(context, interaction.user.id) })] });
}

const DELETE_PREFIX = 'alter-delete:';

/** `alter-delete:<confirm|cancel>:<who ran the command>:<alter id>`. */
function parseDeleteId(customId: string): { action: 'confirm' | 'cancel'; userId: string; alterId: number } | undefined {
  const match = /^alter-delete:(confirm|cancel):(\d{17,20}):(\d{1,16})$/.exec(customId);
  return match ? { action: match[1] as 'confirm' | 'cancel', userId: match[2] as string, alterId: Number(match[3]) } : undefined;
}

async function remove(interaction: ChatInputCommandInteraction, { alters, tags }: BotContext, reply: Responder) {
  const chosen = await requireAlter(interaction, alters, 'alter');
  const id = (action: string) => `${DELETE_PREFIX}${action}:${interaction.user.id}:${chosen.alterId}`;
  const buttons = new ActionRowBuilder<ButtonBuilder>().addComponents(
    new ButtonBuilder().setCustomId(id('confirm')).setLabel('Delete').setStyle(ButtonStyle.Danger),
    new ButtonBuilder().setCustomId(id('cancel')).setLabel('Cancel').setStyle(ButtonStyle.Secondary),
  );
  await reply.send({
    content: `Delete **${alterName(chosen)}** for good? It leaves its tags, the front and autoproxy; messages it sent keep saying which system sent them. This cannot be undone.`,
    embeds: [alterEmbed(chosen, { owner: true, tagNames: await tags.names(interaction.user.id, chosen.tagIds) })],
    components: [buttons],
  });
}

/** The Delete and Cancel buttons of /alter delete. */
const deleteButtons: ButtonHandler = {
  prefix: DELETE_PREFIX,
  async press(interaction: ButtonInteraction, { api, accounts, alters, tags }: BotContext) {
    const parsed = parseDeleteId(interaction.customId);
    if (!parsed) return;
    if (parsed.userId !== interaction.user.id) {
      await interaction.reply({ content: 'Only the person who ran /alter delete can answer this.', flags: MessageFlags.Ephemeral });
      return;
    }
    const name = interaction.message.embeds[0]?.title ?? `alter ${parsed.alterId}`;
    if (parsed.action === 'cancel') {
      await interaction.update({ content: `Kept **${name}**.`, embeds: [], components: [] });
      return;
    }
    try {
      await accounts.withToken(interaction.user.id, (token) => api.deleteAlter(token, parsed.alterId));
    } catch (error) {
      // A second press (or a delete from elsewhere) finds nothing left to delete: say so, harmlessly.
      if (!(error instanceof ApiError && error.type === 'unknown-alter')) throw error;
      await interaction.update({ content: 'That alter was already deleted.', embeds: [], components: [] });
      return;
    }
    alters.invalidate(interaction.user.id);
    tags.invalidate(interaction.user.id);
    await interaction.update({ content: `Deleted **${name}**.`, embeds: [], components: [] });
  },
};

/** /alter list's orders, in words: option value (the API's sort) → what the title says. */
const SORTS: ReadonlyArray<[Exclude<AlterSort, 'id'>, string, string]> = [
  ['name', 'name', 'by name'],
  ['created', 'created', 'oldest first'],
  ['lastMessage', 'last message', 'latest message first'],
  ['messageCount', 'message count', 'most messages first'],
  ['lastFronted', 'last fronted', 'last fronted first'],
];

async function list(interaction: ChatInputCommandInteraction, context: BotContext, reply: Responder) {
  const target = targetOf(interaction);
  const sort = (interaction.options.getString('sort') ?? 'id') as AlterSort;
  const tag = interaction.options.getString('tag') === null ? undefined : await requireTag(interaction, context.tags, 'tag', target);
  const search = interaction.options.getString('search') ?? undefined;
  const label = target === '@me' ? 'Your alters' : `Alters of ${interaction.options.getUser('user')?.username ?? 'that user'}`;
  const title = [
    label,
    SORTS.find(([value]) => value === sort)?.[2],
    tag && `in ${tag.displayName ?? tag.name ?? `tag ${tag.tagId}`}`,
    search && `matching “${search}”`,
  ].filter(Boolean).join(' · ');
  await reply.send(await alterPages.page(context, interaction.user.id, target, 0, title, encodeListState({ sort, tagId: tag?.tagId, search })));
}

/** One of the caller's alters at random, of a tag if one is named. */
async function random(interaction: ChatInputCommandInteraction, { alters, tags, fields }: BotContext, reply: Responder) {
  const tag = interaction.options.getString('tag') === null ? undefined : await requireTag(interaction, tags, 'tag');
  const pool = (await alters.all(interaction.user.id)).filter((alter) => tag === undefined || alter.tagIds.includes(tag.tagId));
  const chosen = pool.length === 0 ? undefined : pool[randomInt(pool.length)];
  if (!chosen) {
    await reply.send({ content: tag ? `**${tag.displayName ?? tag.name}** has no alters.` : 'You have no alters yet: `/alter create` makes one.' });
    return;
  }
  const [tagNames, profileFields] = await Promise.all([tags.names(interaction.user.id, chosen.tagIds), fields.ordered(interaction.user.id)]);
  await reply.send({ embeds: [alterEmbed(chosen, { owner: true, tagNames, profileFields })] });
}

export const alter = {
  data: new SlashCommandBuilder()
    .setName('alter')
    .setDescription('Create, edit, show, list, pick or delete alters')
    .addSubcommand((sub) =>
      addFieldOptions(
        sub
          .setName('create')
          .setDescription('Create an alter')
          .addStringOption((o) => o.setName('username').setDescription('Unique in your system; no spaces, @, / or \\').setRequired(true).setMaxLength(NAME_MAX))
          .addStringOption((o) => o.setName('display-name').setDescription('The name shown on messages').setRequired(true).setMaxLength(NAME_MAX)),
        false,
      ).addAttachmentOption((o) => o.setName(fileOptionOf('avatar')).setDescription('The avatar as an image file (PNG, JPEG, WebP or GIF), kept here')),
    )
    .addSubcommand((sub) => {
      const edit = addFieldOptions(
        sub
          .setName('edit')
          .setDescription('Edit one of your alters')
          .addStringOption((o) => o.setName('alter').setDescription('Which alter').setRequired(true).setAutocomplete(true))
          .addStringOption((o) => o.setName('username').setDescription('New username').setMaxLength(NAME_MAX))
          .addStringOption((o) => o.setName('display-name').setDescription('New display name').setMaxLength(NAME_MAX)),
        true,
      ).addStringOption((o) => o.setName('banner').setDescription('Banner image URL (- to clear)').setMaxLength(URL_MAX));
      edit.addBooleanOption((o) => o.setName(AUTOPROXY_OPTION).setDescription('Front and latch autoproxy may speak as it (false: only its proxy tags do)'));
      return addImageFileOptions(addAlterProxyOptions(edit), EDIT_IMAGES);
    })
    .addSubcommand((sub) =>
      addAlterServerOptions(
        sub
          .setName('server')
          .setDescription('An alter’s name and avatar in one server')
          .addStringOption((o) => o.setName('alter').setDescription('Which alter').setRequired(true).setAutocomplete(true))
          .addStringOption((o) => o.setName(SERVER_OPTION).setDescription('Which server (default: this one)').setAutocomplete(true)),
      ),
    )
    .addSubcommand((sub) =>
      sub
        .setName('show')
        .setDescription('Show an alter’s profile')
        .addStringOption((o) => o.setName('alter').setDescription('Which alter').setRequired(true).setAutocomplete(true))
        .addUserOption((o) => o.setName('user').setDescription('Whose alter (default: yours)')),
    )
    .addSubcommand((sub) =>
      sub
        .setName('list')
        .setDescription('List alters, sorted, of one tag or matching a search')
        .addUserOption((o) => o.setName('user').setDescription('Whose alters (default: yours)'))
        .addStringOption((o) => o.setName('sort').setDescription('Order (default: by id)').addChoices(...SORTS.map(([value, name]) => ({ name, value }))))
        .addStringOption((o) => o.setName('tag').setDescription('Only the members of this tag').setAutocomplete(true))
        .addStringOption((o) => o.setName('search').setDescription('Only alters whose name or description contains this').setMaxLength(40)),
    )
    .addSubcommand((sub) =>
      sub
        .setName('random')
        .setDescription('Show one of your alters at random')
        .addStringOption((o) => o.setName('tag').setDescription('Only from this tag').setAutocomplete(true)),
    )
    .addSubcommand((sub) =>
      addPrivacyOptions(
        sub
          .setName('privacy')
          .setDescription('Choose what others see of one alter (all:public shows everything)')
          .addStringOption((o) => o.setName('alter').setDescription('Which alter').setRequired(true).setAutocomplete(true)),
        ALTER_PRIVACY,
      ),
    )
    .addSubcommand((sub) =>
      sub
        .setName('delete')
        .setDescription('Delete one of your alters (asks first)')
        .addStringOption((o) => o.setName('alter').setDescription('Which alter').setRequired(true).setAutocomplete(true)),
    ),
  ephemeral: (interaction) => ['create', 'edit', 'server', 'privacy', 'delete'].includes(interaction.options.getSubcommand()),
  fieldWords: FIELD_WORDS,
  async execute(interaction, context, reply) {
    const run = { create, edit, server, show, list, random, privacy, delete: remove }[
      interaction.options.getSubcommand() as 'create' | 'edit' | 'server' | 'show' | 'list' | 'random' | 'privacy' | 'delete'
    ];
    await run(interaction, context, reply);
  },
  buttons: [deleteButtons, alterPages.buttons],
  async autocomplete(interaction, { alters, tags }) {
    if (interaction.options.getFocused(true).name === SERVER_OPTION) {
      // The servers the alter already has a name or avatar in come with those the member shares.
      const typedAlter = interaction.options.getString('alter');
      const alter = typedAlter ? await alters.resolve(interaction.user.id, typedAlter).catch(() => undefined) : undefined;
      await interaction.respond(serverChoices(interaction, alter ? [...alter.nameMap.map((entry) => entry.server), ...Object.keys(alter.avatarUrlMap)] : []));
      return;
    }
    const target = targetOf(interaction);
    const focused = interaction.options.getFocused(true);
    const directory = focused.name === 'tag' ? tags : alters;
    await interaction.respond(await directory.choices(interaction.user.id, focused.value, target));
  },
} satisfies SlashCommand;
