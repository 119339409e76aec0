// /help: what the bot can do.
import { EmbedBuilder, SlashCommandBuilder } from 'discord.js';
import type { BotContext, SlashCommand } from '../src/bot/command.js';
import { managePermissionOf } from '../src/bot/servers/may-manage-server.js';
import type { ChatInputCommandInteraction } from 'discord.js';

const LINES = [
  '`/link` connect your Discord account · `/unlink` disconnect it · `/system accounts add` a code for another account of yours, redeemed there with `/link code:` · `/system accounts list` · `/system accounts remove [account]`',
  '`/system show [user]` a system profile and who is fronting · `/system edit` change yours · `/system delete` delete it (sends your export first, then asks)',
  '`/alter create` · `/alter edit` · `/alter show` · `/alter list [user] [sort] [tag] [search]` · `/alter random [tag]` · `/alter delete` (asks first)',
  '`/tag create` · `/tag edit` · `/tag show` · `/tag list [user]` · `/tag add tag alter` · `/tag remove tag alter` · `/tag delete` group your alters',
  '`/field create name [kind] [privacy]` · `/field edit` · `/field order field position` · `/field list [user]` · `/field delete` your own profile fields · `/field set alter field value` fill one in (`-` clears)',
  '`/system privacy` · `/alter privacy alter` choose what others see (`all:public` shows everything; new systems and alters are private)',
  '`/front set alter [alter-2 … alter-5]` switch who is fronting (the first is the primary) · `/front out` nobody is · `/front show [user]` · `/front history [user]`',
  '**Proxying**: `/proxy tag-add alter prefix suffix` then type `prefix hello suffix` to speak as the alter · `/proxy tags` · `/proxy tag-remove` · `/proxy server enabled` (on or off here)',
  '`/autoproxy set mode [alter] [where]` speak as an alter without tags (off, front, latch, alter; this server, this channel or everywhere) · `/autoproxy clear` · `/autoproxy show`',
  'Start a message with `\\` to skip autoproxy once, `\\\\` to end a latch, `\\\\\\` to turn autoproxy off',
  '`/reproxy alter [message]` re-send your last message here (5 minutes), or one you link (an hour), as another alter',
  'On a proxied message: react ❓ for who sent it, ❌ to delete your own; or right-click → Apps → **Message info**, **Edit proxied message**, **Delete proxied message**, **Reproxy message**',
  'Right-click a member → Apps → **View system** (only you see the answer)',
  '`/import file|link [mode] [history]` bring a system from PluralKit or Tupperbox (a preview, then Confirm) · `/export` download yours as a file',
  'Other people’s systems are shown with their privacy settings; looking them up needs no link.',
];

const SERVER_LINE = '**For this server’s admins**: `/server show` · `/server log-channel` · `/server blacklist` · `/server block` · `/server require-tag` · `/server proxy-delay` · `/server managers` · `/server log-cleanup` · `/server permissions` (you can use these here)';

/** Whether the member may use /server here: Manage Server, or a manager role (the server's settings, held or read once). */
async function mayUseServer(interaction: ChatInputCommandInteraction, { proxying }: BotContext): Promise<boolean> {
  if (!interaction.inGuild()) return false;
  if (managePermissionOf(interaction, []) !== null) return true;
  const held = await proxying.servers.atRevision(interaction.guildId, undefined);
  return held !== undefined && managePermissionOf(interaction, held.settings.managerRoles.map((entry) => entry.id)) !== null;
}

export const help = {
  data: new SlashCommandBuilder().setName('help').setDescription('What switchboard can do'),
  ephemeral: true,
  async execute(interaction, context, reply) {
    const lines = (await mayUseServer(interaction, context)) ? [...LINES, SERVER_LINE] : LINES;
    await reply.send({ embeds: [new EmbedBuilder().setTitle('switchboard').setDescription(lines.join('\n')).setColor(0x5865f2)] });
  },
} satisfies SlashCommand;
