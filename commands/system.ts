// /system show [user], /system edit, /system settings, /system server, /system privacy,
// /system delete (src/bot/system-delete.ts) and /system accounts add|remove|list
// (src/bot/system-accounts.ts).
import { SlashCommandBuilder, type ChatInputCommandInteraction } from 'discord.js';
import type { BotContext, SlashCommand } from '../src/bot/command.js';
import { systemEmbed } from '../src/bot/embeds.js';
import { fieldWordsOf } from '../src/bot/error-wording.js';
import { operationDmButtons } from '../src/bot/notices/operation-notices.js';
import { addImageFileOptions, copiedNote, fileOptionOf, imagePatch, type ImageOption } from '../src/bot/images/hosted-image.js';
import { CLEAR, targetOf } from '../src/bot/options.js';
import { chosenServer, SERVER_OPTION, serverChoices } from '../src/bot/settings/servers.js';
import {
  addServerSettingOptions,
  addSystemSettingOptions,
  serverSettingsPatch,
  serverSettingsText,
  SYSTEM_SETTING_WORDS,
  systemSettingsEmbed,
  systemSettingsPatch,
} from '../src/bot/settings/system-settings.js';
import { SYSTEM_PRIVACY, addPrivacyOptions, chosenPrivacy } from '../src/bot/privacy-settings.js';
import type { Responder } from '../src/bot/responder.js';
import { AlterPrivacy } from '../src/domain/privacy-bits.js';
import { DESCRIPTION_MAX, NAME_MAX, URL_MAX } from '../src/domain/values.js';
import { deleteSystem, deleteSystemButtons } from '../src/bot/system-delete.js';
import { ACCOUNT_OPTION, systemAccounts } from '../src/bot/system-accounts.js';

/** The option that turns the "another app changed your system" messages on or off. */
const OPERATION_MESSAGES = 'operation-messages';

const EDITS = [
  ['name', 'systemName', 'The system’s name', NAME_MAX],
  ['display-tag', 'systemDisplayTag', 'Added after proxied names (- to clear)', NAME_MAX],
  ['description', 'systemDescription', 'About the system (- to clear)', DESCRIPTION_MAX],
  ['pronouns', 'systemPronouns', 'The system’s pronouns (- to clear)', NAME_MAX],
  ['avatar', 'systemAvatar', 'Avatar image URL (- to clear)', URL_MAX],
  ['banner', 'systemBanner', 'Banner image URL (- to clear)', URL_MAX],
  ['color', 'systemColor', 'A color like #a1b2c3 (- to clear)', 7],
] as const;

/** The image fields of /system edit: a link, or a file beside it (copied to the service). */
const IMAGES: readonly ImageOption[] = [
  { option: 'avatar', field: 'systemAvatar', purpose: 'avatar', label: 'avatar' },
  { option: 'banner', field: 'systemBanner', purpose: 'banner', label: 'banner' },
];

/** Another user's system needs no link (public data through the bot's own client); one's own does. */
async function show(interaction: ChatInputCommandInteraction, { api, accounts }: BotContext, reply: Responder) {
  const target = targetOf(interaction);
  const [system, fronters] = await accounts.asViewer(interaction.user.id, target, (token) =>
    Promise.all([api.getSystem(token, target), api.currentFront(token, target).catch(() => [])]),
  );
  await reply.send({ embeds: [systemEmbed(system, fronters, { owner: target === '@me' })] });
}

async function edit(interaction: ChatInputCommandInteraction, context: BotContext, reply: Responder) {
  const { api, accounts } = context;
  const patch: Record<string, string | boolean | null> = {};
  for (const [option, field] of EDITS) {
    if (IMAGES.some((image) => image.field === field)) continue;
    const value = interaction.options.getString(option);
    if (value !== null) patch[field] = value === CLEAR && field !== 'systemName' ? null : value;
  }
  const operationMessages = interaction.options.getBoolean(OPERATION_MESSAGES);
  if (operationMessages !== null) patch.systemOperationDM = operationMessages;
  const givenImage = IMAGES.some(({ option }) => interaction.options.get(option) !== null || interaction.options.get(fileOptionOf(option)) !== null);
  if (Object.keys(patch).length === 0 && !givenImage) {
    await reply.send({ content: 'Nothing to change: give at least one option.' });
    return;
  }
  const { system, copied } = await accounts.withToken(interaction.user.id, async (token) => {
    const images = await imagePatch(interaction, context, token, IMAGES);
    return { system: await api.editSystem(token, { ...patch, ...images.patch }), copied: images.copied };
  });
  await reply.send({ content: `System updated.${copiedNote(copied)}`, embeds: [systemEmbed(system, [], { owner: true })] });
}

/** Shows every setting in one place, or changes the ones given. */
async function settings(interaction: ChatInputCommandInteraction, { api, accounts }: BotContext, reply: Responder) {
  const { system, changed } = await accounts.withToken(interaction.user.id, async (token) => {
    const current = await api.getSystem(token, '@me');
    const patch = systemSettingsPatch(interaction, current);
    if (Object.keys(patch).length === 0) return { system: current, changed: false };
    return { system: await api.editSystem(token, patch), changed: true };
  });
  await reply.send({ content: changed ? 'Settings saved.' : undefined, embeds: [systemSettingsEmbed(system, interaction.client)] });
}

/** Shows or changes the system's settings in one server (the one it runs in, or the one named). */
async function server(interaction: ChatInputCommandInteraction, { api, accounts }: BotContext, reply: Responder) {
  const serverId = chosenServer(interaction);
  const { system, changed } = await accounts.withToken(interaction.user.id, async (token) => {
    const current = await api.getSystem(token, '@me');
    const patch = serverSettingsPatch(interaction, current, serverId);
    if (Object.keys(patch).length === 0) return { system: current, changed: false };
    return { system: await api.editSystem(token, patch), changed: true };
  });
  const text = serverSettingsText(system, serverId, interaction.client);
  await reply.send({ content: changed ? `Saved.\n${text}` : text });
}

/** Shows or changes what others see of the system; without options, just shows it. */
async function privacy(interaction: ChatInputCommandInteraction, { api, accounts, alters }: BotContext, reply: Responder) {
  const userId = interaction.user.id;
  const { system, changed } = await accounts.withToken(userId, async (token) => {
    const current = await api.getSystem(token, '@me');
    const wanted = chosenPrivacy((option) => interaction.options.getString(option), SYSTEM_PRIVACY, current.public);
    if (wanted === undefined || wanted === current.public) return { system: current, changed: false };
    return { system: await api.editSystem(token, { public: wanted }), changed: true };
  });
  // Alters have their own settings: say how many others cannot see at all.
  const hiddenAlters = (await alters.all(userId).catch(() => [])).filter((alter) => (alter.public & AlterPrivacy.visible) === 0);
  const alterNote =
    hiddenAlters.length > 0
      ? `\n${hiddenAlters.length === 1 ? '1 of your alters is' : `${hiddenAlters.length} of your alters are`} private (each has its own settings): \`/alter privacy alter:${hiddenAlters[0]?.username ?? '…'} all:public\`.`
      : '';
  const heading = changed ? 'Privacy saved: the profile below says what others see.' : 'What others see of your system is under “Privacy” below.';
  await reply.send({ content: `${heading}${alterNote}`, embeds: [systemEmbed(system, [], { owner: true })] });
}

export const system = {
  data: new SlashCommandBuilder()
    .setName('system')
    .setDescription('Show or edit a system')
    .addSubcommand((sub) =>
      sub
        .setName('show')
        .setDescription('Show a system profile and who is fronting')
        .addUserOption((o) => o.setName('user').setDescription('Whose system (default: yours)')),
    )
    .addSubcommand((sub) => {
      sub.setName('edit').setDescription('Edit your system profile');
      for (const [option, , description, max] of EDITS) sub.addStringOption((o) => o.setName(option).setDescription(description).setMaxLength(max));
      sub.addBooleanOption((o) => o.setName(OPERATION_MESSAGES).setDescription('Get a private message when another app changes your system'));
      return addImageFileOptions(sub, IMAGES);
    })
    .addSubcommand((sub) => addSystemSettingOptions(sub.setName('settings').setDescription('Show all your settings, or change how proxying behaves')))
    .addSubcommand((sub) =>
      addServerSettingOptions(
        sub
          .setName('server')
          .setDescription('Your display tag and proxying in one server')
          .addStringOption((o) => o.setName(SERVER_OPTION).setDescription('Which server (default: this one)').setAutocomplete(true)),
      ),
    )
    .addSubcommand((sub) => addPrivacyOptions(sub.setName('privacy').setDescription('Choose what others see of your system (all:public shows everything)'), SYSTEM_PRIVACY))
    .addSubcommand((sub) => sub.setName('delete').setDescription('Delete your whole system (sends your export file first, then asks)'))
    .addSubcommandGroup((group) =>
      group
        .setName('accounts')
        .setDescription('Other Discord accounts that use this system')
        .addSubcommand((sub) => sub.setName('add').setDescription('Get a one-time code for another Discord account to join this system'))
        .addSubcommand((sub) =>
          sub
            .setName('remove')
            .setDescription('Remove an account from this system (default: this one leaves)')
            .addUserOption((o) => o.setName(ACCOUNT_OPTION).setDescription('The account to remove (the owning account removes others)')),
        )
        .addSubcommand((sub) => sub.setName('list').setDescription('The Discord accounts of this system')),
    ),
  ephemeral: (interaction) => interaction.options.getSubcommand() !== 'show',
  fieldWords: { ...fieldWordsOf(EDITS), ...SYSTEM_SETTING_WORDS, public: 'privacy', systemOperationDM: OPERATION_MESSAGES },
  buttons: [operationDmButtons, deleteSystemButtons],
  async execute(interaction, context, reply) {
    if (interaction.options.getSubcommandGroup() === 'accounts') return systemAccounts(interaction, context, reply);
    const run = { show, edit, settings, server, privacy, delete: deleteSystem }[interaction.options.getSubcommand() as 'show' | 'edit' | 'settings' | 'server' | 'privacy' | 'delete'];
    await run(interaction, context, reply);
  },
  /** The server option: servers shared with the member, and those the system's settings name. */
  async autocomplete(interaction, { api, accounts }) {
    const system = await accounts.withToken(interaction.user.id, (token) => api.getSystem(token, '@me')).catch(() => undefined);
    await interaction.respond(serverChoices(interaction, system ? [...Object.keys(system.displayTagMap), ...system.disabledGuilds] : []));
  },
} satisfies SlashCommand;
