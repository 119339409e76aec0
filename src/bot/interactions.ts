// Routes every interaction to its handler and guarantees an answer: handlers throw, this module
// turns what they throw into a short private message (a link prompt when the user is not linked).
// Nothing a handler does can crash the bot or leave an interaction unanswered.
import type { ButtonInteraction, ChatInputCommandInteraction, Interaction } from 'discord.js';
import { ApiError } from './api-client.js';
import { ALTER_PAGE_PREFIX, alterListPage, parseAlterPageId } from './alter-list.js';
import type { BotLog } from './bot.js';
import type { BotContext, Command, MessageMenuCommand, SlashCommand, UserMenuCommand } from './command.js';
import { LINK_BUTTON_ID, linkPromptButton } from './link-flow.js';
import { NotLinkedError } from './linked-accounts.js';
import { Responder } from './responder.js';


export function messageFor(error: unknown): { content: string; linkPrompt: boolean } {
  if (error instanceof NotLinkedError) {
    return {
      content: error.reason === 'never' ? 'Link your Discord account to switchboard first.' : 'Your link to switchboard has expired or was revoked. Link again to continue.',
      linkPrompt: true,
    };
  }
  if (error instanceof ApiError) {
    const field = error.field && !error.message.includes(error.field) ? ` (${error.field})` : '';
    return { content: `${error.message}${field}`, linkPrompt: false };
  }
  return { content: 'Something went wrong on our side. Try again in a moment.', linkPrompt: false };
}

export function createInteractionHandler(commands: readonly Command[], context: BotContext, log: BotLog) {
  const byName = new Map(commands.map((command) => [command.data.name, command]));
  const modals = commands.flatMap((command) => ('kind' in command && command.modal ? [command.modal] : []));
  const buttons = commands.flatMap((command) => ('buttons' in command && command.buttons ? command.buttons : []));

  async function fail(reply: Responder, error: unknown, interaction: Interaction): Promise<void> {
    if (!(error instanceof NotLinkedError || error instanceof ApiError)) log.error({ err: error, interaction: interaction.id }, 'interaction failed');
    const { content, linkPrompt } = messageFor(error);
    await reply.sendPrivately({ content, components: linkPrompt ? [linkPromptButton()] : [] });
  }

  async function run(interaction: ChatInputCommandInteraction | ButtonInteraction | Interaction, ephemeral: boolean, work: (reply: Responder) => Promise<void>) {
    if (!interaction.isRepliable()) return;
    const reply = new Responder(interaction, ephemeral);
    reply.deferIfSlow();
    try {
      await work(reply);
    } catch (error) {
      await fail(reply, error, interaction).catch((inner: unknown) => log.warn({ err: inner }, 'could not report an error to the user'));
    } finally {
      reply.finish();
    }
  }

  async function onButton(interaction: ButtonInteraction) {
    if (interaction.customId === LINK_BUTTON_ID) {
      await run(interaction, true, (reply) => context.linkFlow.start(interaction, reply));
      return;
    }
    const handler = buttons.find((candidate) => interaction.customId.startsWith(candidate.prefix));
    if (handler) {
      await pressed(interaction, () => handler.press(interaction, context));
      return;
    }
    const page = interaction.customId.startsWith(ALTER_PAGE_PREFIX) ? parseAlterPageId(interaction.customId) : undefined;
    if (!page) return;
    const target = page.ownerId === interaction.user.id ? '@me' : page.ownerId;
    const title = interaction.message.embeds[0]?.title ?? 'Alters';
    await pressed(interaction, async () => interaction.update(await alterListPage(context, interaction.user.id, target, page.skip, title)));
  }

  /** Runs a button's work; what it throws becomes a private message to whoever pressed it. */
  async function pressed(interaction: ButtonInteraction, work: () => Promise<unknown>) {
    try {
      await work();
    } catch (error) {
      if (!(error instanceof NotLinkedError || error instanceof ApiError)) log.error({ err: error, interaction: interaction.id }, 'button failed');
      const { content, linkPrompt } = messageFor(error);
      const payload = { content, components: linkPrompt ? [linkPromptButton()] : [], flags: 64 as const };
      await (interaction.replied || interaction.deferred ? interaction.followUp(payload) : interaction.reply(payload)).catch(() => undefined);
    }
  }

  return async function handle(interaction: Interaction): Promise<void> {
    try {
      if (interaction.isAutocomplete()) {
        const command = byName.get(interaction.commandName) as SlashCommand | undefined;
        await (command?.autocomplete?.(interaction, context) ?? interaction.respond([]));
      } else if (interaction.isChatInputCommand()) {
        const command = byName.get(interaction.commandName) as SlashCommand | undefined;
        if (!command) return;
        const ephemeral = typeof command.ephemeral === 'function' ? command.ephemeral(interaction) : command.ephemeral;
        await run(interaction, ephemeral, (reply) => command.execute(interaction, context, reply));
      } else if (interaction.isMessageContextMenuCommand()) {
        const command = byName.get(interaction.commandName) as MessageMenuCommand | undefined;
        if (!command) return;
        await run(interaction, command.ephemeral ?? true, (reply) => command.execute(interaction, context, reply));
      } else if (interaction.isModalSubmit()) {
        const modal = modals.find((candidate) => interaction.customId.startsWith(candidate.prefix));
        if (!modal) return;
        await run(interaction, true, (reply) => modal.submit(interaction, context, reply));
      } else if (interaction.isUserContextMenuCommand()) {
        const command = byName.get(interaction.commandName) as UserMenuCommand | undefined;
        if (!command) return;
        await run(interaction, true, (reply) => command.execute(interaction, context, reply));
      } else if (interaction.isButton()) {
        await onButton(interaction);
      }
    } catch (error) {
      // Last resort: an autocomplete or button that failed to answer at all.
      log.warn({ err: error, interaction: interaction.id }, 'interaction could not be answered');
    }
  };
}
