// Routes every interaction to its handler and guarantees an answer: handlers throw, this module
// turns what they throw into a short private message (a link prompt when the user is not linked).
// Nothing a handler does can crash the bot or leave an interaction unanswered.
import type { ButtonInteraction, ChatInputCommandInteraction, Interaction } from 'discord.js';
import { ApiError } from './api-client.js';
import type { BotLog } from './log.js';
import type { BotContext, ButtonHandler, Command, MessageMenuCommand, SlashCommand, UserMenuCommand } from './command.js';
import { problemSentences, type FieldWords } from './error-wording.js';
import { linkButton, linkPromptButton } from './links/link-flow.js';
import { NotLinkedError } from './links/linked-accounts.js';
import { Responder } from './responder.js';


/** What the user reads for an error; `words` maps the service's field names to the command's options. */
export function messageFor(error: unknown, words: FieldWords = {}): { content: string; linkPrompt: boolean } {
  if (error instanceof NotLinkedError) {
    return {
      content:
        error.reason === 'never'
          ? 'Link your Discord account to switchboard first: your own system and alters need it. (Looking up someone else’s system needs no link.)'
          : 'Your link to switchboard has expired or was revoked. Link again to continue.',
      linkPrompt: true,
    };
  }
  if (error instanceof ApiError) {
    // The service's own errors, in the command's words; the bot's own errors are written as sentences already.
    if (error.problems.length > 0) return { content: problemSentences(error.problems, words), linkPrompt: false };
    const field = error.field && !error.message.includes(error.field) ? ` (${error.field})` : '';
    return { content: `${error.message}${field}`, linkPrompt: false };
  }
  return { content: 'Something went wrong on our side. Try again in a moment.', linkPrompt: false };
}

/** The bot's buttons, checked once: a prefix that starts another would take its presses. */
export function buttonRegistry(handlers: readonly ButtonHandler[]): readonly ButtonHandler[] {
  for (const a of handlers) {
    for (const b of handlers) {
      if (a !== b && b.prefix.startsWith(a.prefix)) throw new Error(`button prefix "${a.prefix}" also takes the presses of "${b.prefix}"`);
    }
  }
  return handlers;
}

export function createInteractionHandler(commands: readonly Command[], context: BotContext, log: BotLog) {
  const byName = new Map(commands.map((command) => [command.data.name, command]));
  const modals = commands.flatMap((command) => ('modal' in command && command.modal ? [command.modal] : []));
  const buttons = buttonRegistry([linkButton, ...commands.flatMap((command) => ('buttons' in command && command.buttons ? command.buttons : []))]);

  async function fail(reply: Responder, error: unknown, interaction: Interaction): Promise<void> {
    if (!(error instanceof NotLinkedError || error instanceof ApiError)) log.error({ err: error, interaction: interaction.id }, 'interaction failed');
    const command = 'commandName' in interaction ? byName.get(interaction.commandName) : undefined;
    const { content, linkPrompt } = messageFor(error, command && 'fieldWords' in command ? command.fieldWords : {});
    await reply.sendPrivately({ content, components: linkPrompt ? [linkPromptButton()] : [] });
  }

  async function run(
    interaction: ChatInputCommandInteraction | ButtonInteraction | Interaction,
    ephemeral: boolean,
    work: (reply: Responder) => Promise<void>,
  ) {
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
    const handler = buttons.find((candidate) => interaction.customId.startsWith(candidate.prefix));
    if (!handler) return;
    if (handler.replies === 'privately') await run(interaction, true, (reply) => handler.press(interaction, context, reply));
    else await pressed(interaction, () => handler.press(interaction, context));
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
