// /front set | out | show | history: switch who is fronting (co-fronters too), switch out, see who
// is fronting now, and page through the switches.
import { SlashCommandBuilder, type ChatInputCommandInteraction } from 'discord.js';
import { ApiError, type ApiClient } from '../src/bot/api-client.js';
import type { BotContext, SlashCommand } from '../src/bot/command.js';
import { alterEmbed, alterName, frontEmbed } from '../src/bot/embeds.js';
import { frontPages } from '../src/bot/lists/front-history.js';
import type { LinkedAccounts } from '../src/bot/links/linked-accounts.js';
import { requireAlter, targetOf } from '../src/bot/options.js';
import { nicknameFor } from '../src/bot/proxy/nickname.js';
import type { Responder } from '../src/bot/responder.js';
import type { Alter } from '../src/domain/alter.js';

/**
 * The alters `/front set` takes, in order: the first is the primary fronter. Discord has no
 * multi-select with autocomplete, so each is its own option with its own suggestions; the API
 * takes up to 150 at once for apps that need more.
 */
const ALTER_OPTIONS = ['alter', 'alter-2', 'alter-3', 'alter-4', 'alter-5'] as const;

/** Nickname-mode alters: the member's server nickname follows the front (a sentence for the reply). */
async function setNickname(interaction: ChatInputCommandInteraction, api: ApiClient, accounts: LinkedAccounts, alter: Alter): Promise<string> {
  const guild = interaction.guild;
  if (!guild) return '';
  const system = await accounts.withToken(interaction.user.id, (token) => api.getSystem(token, '@me'));
  const nickname = nicknameFor(system.nicknameFormat ?? '%display%', alter);
  try {
    await guild.members.edit(interaction.user.id, { nick: nickname });
    return ` Your nickname here is now **${nickname}**.`;
  } catch {
    // Missing Manage Nicknames, or the member outranks the bot (server owners always do).
    return ' I could not change your nickname here (I need **Manage Nicknames**, and I can never rename the server owner).';
  }
}

/** Records the switch; false when the front already was exactly this (the service's 409 same-front). */
async function switchFront(api: ApiClient, accounts: LinkedAccounts, userId: string, alterIds: number[]): Promise<boolean> {
  try {
    await accounts.withToken(userId, (token) => api.switchFront(token, alterIds));
    return true;
  } catch (error) {
    if (error instanceof ApiError && error.type === 'same-front') return false;
    throw error;
  }
}

/** "A", "A and B", "A, B and C". */
function listed(names: string[]): string {
  return names.length <= 1 ? (names[0] ?? '') : `${names.slice(0, -1).join(', ')} and ${names.at(-1) ?? ''}`;
}

async function set(interaction: ChatInputCommandInteraction, { api, accounts, alters }: BotContext, reply: Responder) {
  const given = ALTER_OPTIONS.filter((option) => interaction.options.getString(option) !== null);
  const chosen: Alter[] = [];
  for (const option of given) {
    const alter = await requireAlter(interaction, alters, option);
    if (chosen.some((earlier) => earlier.alterId === alter.alterId)) {
      throw new ApiError('problem', 400, 'validation', `You named ${alterName(alter)} twice: name each fronter once.`, option);
    }
    chosen.push(alter);
  }
  const [primary, ...others] = chosen;
  if (!primary) throw new ApiError('problem', 400, 'validation', 'Name the alter who is fronting.', 'alter');
  const switched = await switchFront(api, accounts, interaction.user.id, chosen.map((alter) => alter.alterId));
  // Also when the front already was this one: running it again is how to retry the nickname.
  const nickname = primary.alterMode === 'webhook' ? '' : await setNickname(interaction, api, accounts, primary);
  const company = others.length > 0 ? `, with **${listed(others.map(alterName))}**` : '';
  await reply.send({ content: `**${alterName(primary)}** is ${switched ? 'now' : 'already'} fronting${company}.${nickname}`, embeds: [alterEmbed(primary)] });
}

async function out(interaction: ChatInputCommandInteraction, { api, accounts }: BotContext, reply: Responder) {
  const switched = await switchFront(api, accounts, interaction.user.id, []);
  await reply.send({ content: switched ? 'Switched out: nobody is fronting now.' : 'Nobody is fronting already.' });
}

const whose = (interaction: ChatInputCommandInteraction) => interaction.options.getUser('user')?.username ?? 'that user';

async function show(interaction: ChatInputCommandInteraction, { api, accounts }: BotContext, reply: Responder) {
  const target = targetOf(interaction);
  const front = await accounts.asViewer(interaction.user.id, target, (token) => api.getFront(token, target));
  await reply.send({ embeds: [frontEmbed(front, target === '@me' ? 'Fronting now' : `Fronting for ${whose(interaction)}`)] });
}

async function history(interaction: ChatInputCommandInteraction, context: BotContext, reply: Responder) {
  const target = targetOf(interaction);
  const title = target === '@me' ? 'Your switches' : `Switches of ${whose(interaction)}`;
  await reply.send(await frontPages.page(context, interaction.user.id, target, 0, title));
}

export const front = {
  data: new SlashCommandBuilder()
    .setName('front')
    .setDescription('Switch who is fronting, or see who is')
    .addSubcommand((sub) => {
      sub.setName('set').setDescription('Switch: these alters are fronting from now on');
      sub.addStringOption((o) => o.setName('alter').setDescription('Who is fronting (the primary fronter, whom front autoproxy speaks as)').setRequired(true).setAutocomplete(true));
      for (const option of ALTER_OPTIONS.slice(1)) sub.addStringOption((o) => o.setName(option).setDescription('Also fronting').setAutocomplete(true));
      return sub;
    })
    .addSubcommand((sub) => sub.setName('out').setDescription('Switch out: nobody is fronting'))
    .addSubcommand((sub) =>
      sub
        .setName('show')
        .setDescription('Who is fronting now')
        .addUserOption((o) => o.setName('user').setDescription('Whose front (default: yours)')),
    )
    .addSubcommand((sub) =>
      sub
        .setName('history')
        .setDescription('The switches, newest first')
        .addUserOption((o) => o.setName('user').setDescription('Whose switches (default: yours)')),
    ),
  ephemeral: false,
  async execute(interaction, context, reply) {
    const run = { set, out, show, history }[interaction.options.getSubcommand() as 'set' | 'out' | 'show' | 'history'];
    await run(interaction, context, reply);
  },
  async autocomplete(interaction, { alters }) {
    await interaction.respond(await alters.choices(interaction.user.id, interaction.options.getFocused()));
  },
  buttons: [frontPages.buttons],
} satisfies SlashCommand;
