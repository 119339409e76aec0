// /link: connect this Discord account to switchboard (OAuth device flow + one-time login link);
// with `code:`, then join the system whose owning account made the code (/system accounts add).
import { SlashCommandBuilder } from 'discord.js';
import type { SlashCommand } from '../src/bot/command.js';
import { CODE_OPTION, DISCARD_OPTION, redeemAccountCode } from '../src/bot/system-accounts.js';

export const link = {
  data: new SlashCommandBuilder()
    .setName('link')
    .setDescription('Connect your Discord account to switchboard')
    .addStringOption((o) => o.setName(CODE_OPTION).setDescription('A code from /system accounts add: join that system with this account').setMaxLength(64))
    .addBooleanOption((o) => o.setName(DISCARD_OPTION).setDescription('With code: delete this account’s own system (alters and all) to join')),
  ephemeral: true,
  async execute(interaction, context, reply) {
    const code = interaction.options.getString(CODE_OPTION);
    if (code === null) return context.linkFlow.start(interaction, reply);
    const userId = interaction.user.id;
    const redeem = () => redeemAccountCode(userId, code, interaction.options.getBoolean(DISCARD_OPTION) === true, context);
    // Linked already: join at once. Otherwise the account signs in first, and joins once linked.
    if (await context.accounts.isLinked(userId)) return reply.send({ content: await redeem() });
    await context.linkFlow.start(interaction, reply, redeem);
  },
} satisfies SlashCommand;
