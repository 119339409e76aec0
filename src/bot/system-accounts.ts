// Several Discord accounts for one system (issue 29) in the bot: /system accounts add (a one-time
// code from the service, shown to the owning account), remove and list, and redeeming a code with
// /link code: on the other account, after its own sign-in. Every account proxies with its own link
// (its own token), which the service resolves to the one system; what the bot holds per Discord
// user (its link, proxy profiles, alter and tag names) is dropped for an account that joins or
// leaves, here at once and in other bot processes through the link feed (linked-accounts.ts).
import type { ChatInputCommandInteraction } from 'discord.js';
import { ApiError } from './api-client.js';
import type { BotContext } from './command.js';
import type { Responder } from './responder.js';

export const ACCOUNT_OPTION = 'account';
export const CODE_OPTION = 'code';
export const DISCARD_OPTION = 'discard-own-system';

const mention = (userId: string) => `<@${userId}>`;

/** Drops what this process holds for the user's old system (the link itself stays: it is the account's). */
function forgetSystemOf(userId: string, { alters, tags, proxying }: BotContext): void {
  alters.invalidate(userId);
  tags.invalidate(userId);
  proxying.profiles.forget(userId);
}

async function add(interaction: ChatInputCommandInteraction, { api, accounts }: BotContext, reply: Responder): Promise<void> {
  const { code, expiresAt } = await accounts.withToken(interaction.user.id, (token) => api.makeAccountCode(token));
  const until = Math.floor(Date.parse(expiresAt) / 1000);
  await reply.send({
    content: [
      `Your code: **${code}** (works once, until <t:${until}:t>).`,
      `On the other Discord account, run \`/link code:${code}\`: it signs in first if it never has, then joins this system and proxies as it.`,
      'Keep the code to yourself: whoever redeems it can use your system.',
    ].join('\n'),
  });
}

async function remove(interaction: ChatInputCommandInteraction, context: BotContext, reply: Responder): Promise<void> {
  const { api, accounts } = context;
  const self = interaction.user.id;
  const account = interaction.options.getUser(ACCOUNT_OPTION)?.id ?? self;
  await accounts.withToken(self, (token) => api.removeAccount(token, account));
  // The service ended the removed account's grants: its link here is dead. Forgetting it announces
  // it on the link feed, so no bot process keeps proxying it as this system.
  await accounts.unlink(account);
  forgetSystemOf(account, context);
  await reply.send({
    content:
      account === self
        ? 'This Discord account has left the system. It has a new, empty system of its own; run `/link` to use it.'
        : `${mention(account)} is no longer an account of your system. It has a new, empty system of its own and must \`/link\` again to use it.`,
  });
}

async function list(interaction: ChatInputCommandInteraction, { api, accounts }: BotContext, reply: Responder): Promise<void> {
  const system = await accounts.withToken(interaction.user.id, (token) => api.getSystem(token, '@me'));
  const others = system.subAccounts.map(mention);
  await reply.send({
    content: [
      `Owning account: ${mention(system.associatedUserId)}${system.associatedUserId === interaction.user.id ? ' (this one)' : ''}`,
      others.length > 0 ? `Other accounts: ${others.join(', ')}` : 'No other accounts. Add one with `/system accounts add`.',
    ].join('\n'),
  });
}

/** /system accounts add | remove | list. */
export async function systemAccounts(interaction: ChatInputCommandInteraction, context: BotContext, reply: Responder): Promise<void> {
  const run = { add, remove, list }[interaction.options.getSubcommand() as 'add' | 'remove' | 'list'];
  await run(interaction, context, reply);
}

/**
 * Redeems `code` for a linked account: the sentence to show, success or not (the service's refusals
 * in the bot's words, naming the option that fixes them).
 */
export async function redeemAccountCode(userId: string, code: string, discardOwnSystem: boolean, context: BotContext): Promise<string> {
  const { api, accounts } = context;
  try {
    const joined = await accounts.withToken(userId, (token) => api.redeemAccountCode(token, code, discardOwnSystem));
    forgetSystemOf(userId, context);
    return `This Discord account is now an account of the system of ${mention(joined.associatedUserId)}: it proxies as that system, and \`/system\`, \`/alter\` and the rest show it.`;
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    if (error.type === 'invalid-account-code') return 'That code is unknown, used or expired. Ask the owning account for a new one (`/system accounts add`).';
    if (error.type === 'account-has-system') {
      return [
        `This account cannot join yet: ${error.message}.`,
        `If its own system holds alters you no longer need, run \`/link code:${code} ${DISCARD_OPTION}:True\` to delete that system and join (export it first with \`/export\` if unsure).`,
      ].join('\n');
    }
    throw error;
  }
}
