// /autoproxy set | clear | show: which alter speaks for messages without proxy tags, everywhere,
// in this server or in this channel (the most specific setting wins, even when it is "off").
import { SlashCommandBuilder, type ChatInputCommandInteraction } from 'discord.js';
import { ApiError } from '../src/bot/api-client.js';
import type { BotContext, SlashCommand } from '../src/bot/command.js';
import { alterName } from '../src/bot/embeds.js';
import { requireAlter } from '../src/bot/options.js';
import type { Responder } from '../src/bot/responder.js';

const WHERE = [
  { name: 'this server', value: 'server' },
  { name: 'this channel', value: 'channel' },
  { name: 'everywhere', value: 'global' },
] as const;

const MODES = [
  { name: 'off: only proxy tags', value: 'off' },
  { name: 'front: as whoever is fronting', value: 'front' },
  { name: 'latch: as the last alter I proxied', value: 'latch' },
  { name: 'alter: always as one alter', value: 'alter' },
] as const;

/** The stored scope label for the `where` option. Threads count as their parent channel. */
function scopeOf(interaction: ChatInputCommandInteraction): string {
  const where = interaction.options.getString('where') ?? 'server';
  if (where === 'global') return '@global';
  const guildId = interaction.guildId;
  if (!guildId) throw new ApiError('problem', 400, 'validation', 'In a direct message only "everywhere" applies.', 'where');
  if (where === 'server') return guildId;
  const channel = interaction.channel;
  const channelId = channel?.isThread() ? (channel.parentId ?? channel.id) : interaction.channelId;
  return `${guildId}/${channelId}`;
}

// Inside code spans Discord shows backslashes as typed.
const ESCAPES = 'Start a message with `\\` to skip autoproxy once, `\\\\` to end a latch, `\\\\\\` to turn autoproxy off.';

/** The option that makes a setting this Discord account's own (issue 29): the system's other accounts keep theirs. */
const ACCOUNT_ONLY = 'only-this-account';
const accountOf = (interaction: ChatInputCommandInteraction) => (interaction.options.getBoolean(ACCOUNT_ONLY) === true ? { account: interaction.user.id } : {});
const forWhom = (interaction: ChatInputCommandInteraction) => (interaction.options.getBoolean(ACCOUNT_ONLY) === true ? ' (for this Discord account only)' : '');

const describe = (scope: string) => (scope === '@global' ? 'everywhere' : scope.includes('/') ? `in <#${scope.split('/')[1]}>` : 'in this server');

async function set(interaction: ChatInputCommandInteraction, { api, accounts, alters }: BotContext, reply: Responder) {
  const mode = interaction.options.getString('mode', true);
  const scope = scopeOf(interaction);
  const alter = mode === 'alter' ? await requireAlter(interaction, alters, 'alter') : undefined;
  if (mode === 'alter' && !alter) throw new ApiError('problem', 400, 'validation', 'Alter mode needs the alter to speak as.', 'alter');
  await accounts.withToken(interaction.user.id, (token) =>
    api.setAutoproxy(token, { serverId: scope, autoproxyMode: mode, ...(alter ? { autoproxyAlter: String(alter.alterId) } : {}), ...accountOf(interaction) }),
  );
  const what = {
    off: 'Autoproxy is off',
    front: 'Messages without tags are sent as whoever is fronting',
    latch: 'Messages without tags are sent as the last alter you proxied',
    alter: `Messages without tags are sent as **${alter ? alterName(alter) : ''}**`,
  }[mode];
  await reply.send({ content: `${what} ${describe(scope)}${forWhom(interaction)}. ${ESCAPES}` });
}

async function clear(interaction: ChatInputCommandInteraction, { api, accounts }: BotContext, reply: Responder) {
  const scope = scopeOf(interaction);
  const { account } = accountOf(interaction);
  const { removed } = await accounts.withToken(interaction.user.id, (token) => api.removeAutoproxy(token, scope, account));
  const setting = `the autoproxy setting ${describe(scope)}${forWhom(interaction)}`;
  await reply.send({ content: removed ? `Removed ${setting}; the ${account ? 'system’s' : 'broader'} one applies again.` : `There was no ${setting}.` });
}

async function show(interaction: ChatInputCommandInteraction, { api, accounts }: BotContext, reply: Responder) {
  const entries = await accounts.withToken(interaction.user.id, (token) => api.listAutoproxy(token));
  // The system's entries and this account's own (another account's own are theirs).
  const relevant = entries.filter(
    (entry) => (entry.account === null || entry.account === interaction.user.id) && (entry.serverId === '@global' || (interaction.guildId && entry.serverId.split('/')[0] === interaction.guildId)),
  );
  const lines = relevant.map(
    (entry) => `${describe(entry.serverId)}${entry.account === null ? '' : ' (this account only)'}: **${entry.autoproxyMode}**${entry.autoproxyAlter ? ` (alter ${entry.autoproxyAlter})` : ''}`,
  );
  await reply.send({ content: lines.length > 0 ? lines.join('\n') : 'No autoproxy settings here: only proxy tags are used.' });
}

export const autoproxy = {
  data: new SlashCommandBuilder()
    .setName('autoproxy')
    .setDescription('Send messages without proxy tags as an alter')
    .addSubcommand((s) =>
      s
        .setName('set')
        .setDescription('Choose who speaks for messages without tags')
        .addStringOption((o) => o.setName('mode').setDescription('How to choose the alter').setRequired(true).addChoices(...MODES))
        .addStringOption((o) => o.setName('alter').setDescription('For alter mode: the alter').setAutocomplete(true))
        .addStringOption((o) => o.setName('where').setDescription('Where it applies (default: this server)').addChoices(...WHERE))
        .addBooleanOption((o) => o.setName(ACCOUNT_ONLY).setDescription('Only for this Discord account (your system’s other accounts keep theirs)')),
    )
    .addSubcommand((s) =>
      s
        .setName('clear')
        .setDescription('Remove a setting, so the broader one applies')
        .addStringOption((o) => o.setName('where').setDescription('Which setting (default: this server)').addChoices(...WHERE))
        .addBooleanOption((o) => o.setName(ACCOUNT_ONLY).setDescription('This Discord account’s own setting')),
    )
    .addSubcommand((s) => s.setName('show').setDescription('Your autoproxy settings that apply here')),
  ephemeral: true,
  fieldWords: { autoproxyMode: 'mode', autoproxyAlter: 'alter', serverId: 'where' },
  async execute(interaction, context, reply) {
    const run = { set, clear, show }[interaction.options.getSubcommand()];
    if (run) await run(interaction, context, reply);
  },
  async autocomplete(interaction, { alters }) {
    await interaction.respond(await alters.choices(interaction.user.id, interaction.options.getFocused()));
  },
} satisfies SlashCommand;
