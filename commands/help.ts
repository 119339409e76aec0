// /help: what the bot can do.
import { EmbedBuilder, SlashCommandBuilder } from 'discord.js';
import type { SlashCommand } from '../src/bot/command.js';

const LINES = [
  '`/link` connect your Discord account · `/unlink` disconnect it',
  '`/system show [user]` a system profile and who is fronting · `/system edit` change yours',
  '`/alter create` · `/alter edit` · `/alter show` · `/alter list [user]`',
  '`/front alter` switch who is fronting',
  'Right-click a member → Apps → **View system** (only you see the answer)',
  'Other people’s systems are shown with their privacy settings.',
];

export const help = {
  data: new SlashCommandBuilder().setName('help').setDescription('What switchboard can do'),
  ephemeral: true,
  async execute(_interaction, _context, reply) {
    await reply.send({ embeds: [new EmbedBuilder().setTitle('switchboard').setDescription(LINES.join('\n')).setColor(0x5865f2)] });
  },
} satisfies SlashCommand;
