// /unlink: revoke the bot's tokens at the service and forget them.
import { SlashCommandBuilder } from 'discord.js';
import type { SlashCommand } from '../src/bot/command.js';

export const unlink = {
  data: new SlashCommandBuilder().setName('unlink').setDescription('Disconnect your Discord account from switchboard'),
  ephemeral: true,
  async execute(interaction, { accounts, alters, proxying }, reply) {
    const wasLinked = await accounts.unlink(interaction.user.id);
    alters.invalidate(interaction.user.id);
    proxying.profiles.forget(interaction.user.id);
    await reply.send({ content: wasLinked ? 'Unlinked. The bot no longer has access to your system.' : 'Your account was not linked.' });
  },
} satisfies SlashCommand;
