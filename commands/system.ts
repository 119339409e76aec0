// /system show [user] and /system edit.
import { SlashCommandBuilder, type ChatInputCommandInteraction } from 'discord.js';
import type { BotContext, SlashCommand } from '../src/bot/command.js';
import { systemEmbed } from '../src/bot/embeds.js';
import { targetOf } from '../src/bot/options.js';
import type { Responder } from '../src/bot/responder.js';

/** Typing this clears a field. */
export const CLEAR = '-';

const EDITS = [
  ['name', 'systemName', 'The system’s name'],
  ['display-tag', 'systemDisplayTag', 'Added after proxied names (- to clear)'],
  ['description', 'systemDescription', 'About the system (- to clear)'],
  ['pronouns', 'systemPronouns', 'The system’s pronouns (- to clear)'],
  ['avatar', 'systemAvatar', 'Avatar image URL (- to clear)'],
  ['banner', 'systemBanner', 'Banner image URL (- to clear)'],
] as const;

async function show(interaction: ChatInputCommandInteraction, { api, accounts }: BotContext, reply: Responder) {
  const target = targetOf(interaction);
  const [system, front] = await accounts.withToken(interaction.user.id, (token) =>
    Promise.all([api.getSystem(token, target), api.getFront(token, target).catch(() => undefined)]),
  );
  await reply.send({ embeds: [systemEmbed(system, front)] });
}

async function edit(interaction: ChatInputCommandInteraction, { api, accounts }: BotContext, reply: Responder) {
  const patch: Record<string, string | null> = {};
  for (const [option, field] of EDITS) {
    const value = interaction.options.getString(option);
    if (value !== null) patch[field] = value === CLEAR && field !== 'systemName' ? null : value;
  }
  if (Object.keys(patch).length === 0) {
    await reply.send({ content: 'Nothing to change: give at least one option.' });
    return;
  }
  const system = await accounts.withToken(interaction.user.id, (token) => api.editSystem(token, patch));
  await reply.send({ content: 'System updated.', embeds: [systemEmbed(system, undefined)] });
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
      for (const [option, , description] of EDITS) sub.addStringOption((o) => o.setName(option).setDescription(description).setMaxLength(option === 'description' ? 1000 : 300));
      return sub;
    }),
  ephemeral: (interaction) => interaction.options.getSubcommand() === 'edit',
  async execute(interaction, context, reply) {
    if (interaction.options.getSubcommand() === 'edit') await edit(interaction, context, reply);
    else await show(interaction, context, reply);
  },
} satisfies SlashCommand;
