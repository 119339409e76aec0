// /system delete: the owner's export file first (the /export answer), then a question with Delete
// everything / Cancel buttons that only they can press. Delete calls the service, which removes the
// system and revokes every grant of the account (the bot's link too), and then the link is
// forgotten here as /unlink would. Apart from commands/system.ts so that the subcommand's flow and
// its buttons read in one place; system.ts registers the subcommand and the buttons.
import { ActionRowBuilder, ButtonBuilder, ButtonStyle, MessageFlags, type ButtonInteraction, type ChatInputCommandInteraction } from 'discord.js';
import { ApiError } from '../src/bot/api-client.js';
import type { BotContext, ButtonHandler } from '../src/bot/command.js';
import { NotLinkedError } from '../src/bot/links/linked-accounts.js';
import type { Responder } from '../src/bot/responder.js';
import { exportAnswer } from './export.js';

const PREFIX = 'system-delete:';

/** `system-delete:<confirm|cancel>:<who ran the command>`. */
function parseId(customId: string): { action: 'confirm' | 'cancel'; userId: string } | undefined {
  const match = /^system-delete:(confirm|cancel):(\d{17,20})$/.exec(customId);
  return match ? { action: match[1] as 'confirm' | 'cancel', userId: match[2] as string } : undefined;
}

export async function deleteSystem(interaction: ChatInputCommandInteraction, { api, accounts }: BotContext, reply: Responder): Promise<void> {
  const userId = interaction.user.id;
  // The file first: whatever happens next, the owner has everything they are about to delete.
  const file = await accounts.withToken(userId, (token) => api.exportSystem(token));
  const answer = exportAnswer(file, interaction.attachmentSizeLimit);
  await reply.send({ content: answer.content, ...(answer.files ? { files: answer.files } : {}) });
  const id = (action: string) => `${PREFIX}${action}:${userId}`;
  await interaction.followUp({
    content: [
      `**Delete your whole system for good?** Every alter, tag, switch and setting goes, and every app you authorized (this bot too) loses access. ${answer.sent ? 'Your export is above: save it first.' : 'Download your export from the API first.'}`,
      'Messages already proxied stay in their channels; moderators can still see which Discord account sent them, nothing more. This cannot be undone.',
    ].join('\n'),
    components: [
      new ActionRowBuilder<ButtonBuilder>().addComponents(
        new ButtonBuilder().setCustomId(id('confirm')).setLabel('Delete everything').setStyle(ButtonStyle.Danger),
        new ButtonBuilder().setCustomId(id('cancel')).setLabel('Cancel').setStyle(ButtonStyle.Secondary),
      ),
    ],
    flags: MessageFlags.Ephemeral,
  });
}

/** The buttons of /system delete. */
export const deleteSystemButtons: ButtonHandler = {
  prefix: PREFIX,
  async press(interaction: ButtonInteraction, { api, accounts, alters, tags, proxying }: BotContext) {
    const parsed = parseId(interaction.customId);
    if (!parsed) return;
    if (parsed.userId !== interaction.user.id) {
      await interaction.reply({ content: 'Only the person who ran /system delete can answer this.', flags: MessageFlags.Ephemeral });
      return;
    }
    if (parsed.action === 'cancel') {
      await interaction.update({ content: 'Kept your system. Nothing was deleted.', components: [] });
      return;
    }
    // A large system takes a moment: acknowledge the press, then say how it went.
    await interaction.deferUpdate();
    try {
      await accounts.withToken(interaction.user.id, (token) => api.deleteSystem(token));
    } catch (error) {
      // A second press (or a delete from elsewhere): the link ended with the system.
      if (!(error instanceof NotLinkedError || (error instanceof ApiError && (error.status === 401 || error.type === 'no-system')))) throw error;
      await interaction.editReply({ content: 'Your system was already deleted.', components: [] });
      return;
    }
    // The service revoked the link's tokens with the system; forget them here as /unlink does.
    await accounts.unlink(interaction.user.id);
    alters.invalidate(interaction.user.id);
    tags.invalidate(interaction.user.id);
    proxying.profiles.forget(interaction.user.id);
    await interaction.editReply({
      content: 'Deleted your system and everything in it, and unlinked your account. If you sign in or `/link` again later, you start with a new, empty system.',
      components: [],
    });
  },
};
