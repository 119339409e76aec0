// /front set | out | show | history | stats: switch who is fronting (co-fronters too, now or at a
// time given in the owner's time zone), switch out, see who is fronting now, page through the
// switches (and fix them: src/bot/front-switches.ts), and the front statistics.
import { SlashCommandBuilder, type ChatInputCommandInteraction } from 'discord.js';
import { ApiError, type ApiClient } from '../src/bot/api-client.js';
import type { BotContext, SlashCommand } from '../src/bot/command.js';
import { alterEmbed, alterName, frontEmbed } from '../src/bot/embeds.js';
import { ownerZone, switchButtons, switchForm } from '../src/bot/front-switches.js';
import { frontStatsEmbed } from '../src/bot/front-stats-view.js';
import { frontPages } from '../src/bot/lists/front-history.js';
import type { LinkedAccounts } from '../src/bot/links/linked-accounts.js';
import { requireAlter, requireTag, targetOf } from '../src/bot/options.js';
import { nicknameFor } from '../src/bot/proxy/nickname.js';
import type { Responder } from '../src/bot/responder.js';
import { formatWallClock, parseWhen } from '../src/bot/when.js';
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
async function switchFront(api: ApiClient, accounts: LinkedAccounts, userId: string, alterIds: number[], at?: number): Promise<boolean> {
  try {
    await accounts.withToken(userId, (token) => api.switchFront(token, alterIds, at));
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

/** The `when` option read in the owner's time zone: undefined for now, else the instant and how to say it. */
async function whenOf(interaction: ChatInputCommandInteraction, api: ApiClient, accounts: LinkedAccounts): Promise<{ at: number; said: string } | undefined> {
  const typed = interaction.options.getString('when');
  if (typed === null || typed.trim().toLowerCase() === 'now') return undefined;
  const zone = await ownerZone(api, accounts, interaction.user.id);
  const parsed = parseWhen(typed, { now: Date.now(), zone });
  if ('error' in parsed) throw new ApiError('problem', 400, 'validation', parsed.error, 'when');
  return { at: parsed.at, said: ` since <t:${Math.floor(parsed.at / 1000)}:f> (${formatWallClock(parsed.at, zone)} ${zone})` };
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
  const when = await whenOf(interaction, api, accounts);
  const switched = await switchFront(api, accounts, interaction.user.id, chosen.map((alter) => alter.alterId), when?.at);
  const company = others.length > 0 ? `, with **${listed(others.map(alterName))}**` : '';
  if (when) {
    // A late switch: recorded in its place in the history; the nickname follows only the current front.
    const content = switched ? `Recorded: **${alterName(primary)}** fronting${company}${when.said}.` : `**${alterName(primary)}** was already fronting${company} then.`;
    await reply.send({ content, embeds: [alterEmbed(primary)] });
    return;
  }
  // Also when the front already was this one: running it again is how to retry the nickname.
  const nickname = primary.alterMode === 'webhook' ? '' : await setNickname(interaction, api, accounts, primary);
  await reply.send({ content: `**${alterName(primary)}** is ${switched ? 'now' : 'already'} fronting${company}.${nickname}`, embeds: [alterEmbed(primary)] });
}

async function out(interaction: ChatInputCommandInteraction, { api, accounts }: BotContext, reply: Responder) {
  const when = await whenOf(interaction, api, accounts);
  const switched = await switchFront(api, accounts, interaction.user.id, [], when?.at);
  if (when) {
    await reply.send({ content: switched ? `Recorded: nobody fronting${when.said}.` : 'Nobody was fronting then already.' });
    return;
  }
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

const DAY = 86_400_000;
/** `/front stats period:` choices; `all` is the longest period the service counts (5 years). */
const PERIODS: Record<string, { label: string; ms: number }> = {
  '24h': { label: 'the last 24 hours', ms: DAY },
  '7d': { label: 'the last 7 days', ms: 7 * DAY },
  '30d': { label: 'the last 30 days', ms: 30 * DAY },
  '90d': { label: 'the last 90 days', ms: 90 * DAY },
  '1y': { label: 'the last year', ms: 365 * DAY },
  // A minute short of five years, so the service's "now" (a little later) still fits.
  all: { label: 'all time (up to 5 years)', ms: 5 * 365 * DAY },
};

/** A custom end of the period, read as `/front set when:` reads times, in the owner's zone. */
async function periodEnd(interaction: ChatInputCommandInteraction, option: 'from' | 'to', zone: () => Promise<string>): Promise<number | undefined> {
  const typed = interaction.options.getString(option);
  if (typed === null) return undefined;
  const parsed = parseWhen(typed, { now: Date.now(), zone: await zone() });
  if ('error' in parsed) throw new ApiError('problem', 400, 'validation', parsed.error, option);
  return parsed.at;
}

async function stats(interaction: ChatInputCommandInteraction, { api, accounts, alters, tags }: BotContext, reply: Responder) {
  const target = targetOf(interaction);
  let zone: string | undefined;
  const zoneOnce = async () => (zone ??= await ownerZone(api, accounts, interaction.user.id).catch(() => 'UTC'));
  const now = Date.now();
  const chosen = PERIODS[interaction.options.getString('period') ?? '30d'] ?? (PERIODS['30d'] as { label: string; ms: number });
  const customFrom = await periodEnd(interaction, 'from', zoneOnce);
  const customTo = await periodEnd(interaction, 'to', zoneOnce);
  const to = customTo ?? now;
  const from = customFrom ?? to - chosen.ms + (chosen.ms >= 5 * 365 * DAY ? 60_000 : 0);
  const tag = interaction.options.getString('tag') === null ? undefined : await requireTag(interaction, tags, 'tag', target);
  const primary = interaction.options.getBoolean('primary') ?? false;
  const result = await accounts.asViewer(interaction.user.id, target, (token) =>
    api.frontStats(token, target, { from, to, ...(tag ? { tagId: tag.tagId } : {}), primary }),
  );
  const named = new Map((await alters.all(interaction.user.id, target).catch(() => [])).map((alter) => [alter.alterId, alterName(alter)]));
  const period = customFrom !== undefined || customTo !== undefined ? 'the chosen period' : chosen.label;
  const whom = target === '@me' ? 'Your front' : `Front of ${whose(interaction)}`;
  const title = `${whom}: ${period}${tag ? ` · ${tag.displayName ?? tag.name}` : ''}${primary ? ' · primary only' : ''}`;
  await reply.send({ embeds: [frontStatsEmbed(result, (id) => named.get(id) ?? `Alter ${id}`, title)] });
}

export const front = {
  data: new SlashCommandBuilder()
    .setName('front')
    .setDescription('Switch who is fronting, or see who is')
    .addSubcommand((sub) => {
      sub.setName('set').setDescription('Switch: these alters are fronting from now on');
      sub.addStringOption((o) => o.setName('alter').setDescription('Who is fronting (the primary fronter, whom front autoproxy speaks as)').setRequired(true).setAutocomplete(true));
      for (const option of ALTER_OPTIONS.slice(1)) sub.addStringOption((o) => o.setName(option).setDescription('Also fronting').setAutocomplete(true));
      sub.addStringOption((o) => o.setName('when').setDescription('Record it for an earlier time: 15m ago, yesterday 21:00, 2026-11-27 18:30 (your time zone)').setMaxLength(100));
      return sub;
    })
    .addSubcommand((sub) =>
      sub
        .setName('out')
        .setDescription('Switch out: nobody is fronting')
        .addStringOption((o) => o.setName('when').setDescription('Record it for an earlier time: 15m ago, yesterday 21:00 (your time zone)').setMaxLength(100)),
    )
    .addSubcommand((sub) =>
      sub
        .setName('show')
        .setDescription('Who is fronting now')
        .addUserOption((o) => o.setName('user').setDescription('Whose front (default: yours)')),
    )
    .addSubcommand((sub) =>
      sub
        .setName('history')
        .setDescription('The switches, newest first (your own: with buttons to fix them)')
        .addUserOption((o) => o.setName('user').setDescription('Whose switches (default: yours)')),
    )
    .addSubcommand((sub) =>
      sub
        .setName('stats')
        .setDescription('Who fronted how long: a ranked list with shares')
        .addStringOption((o) =>
          o
            .setName('period')
            .setDescription('Which period (default: the last 30 days)')
            .addChoices(...Object.entries(PERIODS).map(([value, { label }]) => ({ name: label, value }))),
        )
        .addStringOption((o) => o.setName('tag').setDescription('Only this tag’s members').setAutocomplete(true))
        .addUserOption((o) => o.setName('user').setDescription('Whose front (default: yours)'))
        .addBooleanOption((o) => o.setName('primary').setDescription('Count only the primary fronter of each switch'))
        .addStringOption((o) => o.setName('from').setDescription('A custom start instead: 2026-11-01, 3 days ago… (your time zone)').setMaxLength(100))
        .addStringOption((o) => o.setName('to').setDescription('A custom end: yesterday 21:00… (default: now)').setMaxLength(100)),
    ),
  ephemeral: false,
  async execute(interaction, context, reply) {
    const run = { set, out, show, history, stats }[interaction.options.getSubcommand() as 'set' | 'out' | 'show' | 'history' | 'stats'];
    await run(interaction, context, reply);
  },
  async autocomplete(interaction, { alters, tags }) {
    const focused = interaction.options.getFocused(true);
    if (focused.name === 'tag') {
      await interaction.respond(await tags.choices(interaction.user.id, focused.value, targetOf(interaction)));
      return;
    }
    await interaction.respond(await alters.choices(interaction.user.id, focused.value));
  },
  fieldWords: { timestamp: 'when' },
  buttons: [frontPages.buttons, ...switchButtons],
  modal: switchForm,
} satisfies SlashCommand;
