// What a slash command is: its definition beside its handler (the discord.js guide's shape), and
// what handlers get to work with. Commands live in commands/, one file each.
import type {
  AutocompleteInteraction,
  ButtonInteraction,
  ChatInputCommandInteraction,
  ContextMenuCommandBuilder,
  MessageContextMenuCommandInteraction,
  ModalSubmitInteraction,
  RESTPostAPIApplicationCommandsJSONBody,
  SlashCommandBuilder,
  SlashCommandOptionsOnlyBuilder,
  SlashCommandSubcommandsOnlyBuilder,
  UserContextMenuCommandInteraction,
} from 'discord.js';
import type { ApiClient } from './api-client.js';
import type { AlterDirectory } from './lists/alter-directory.js';
import type { FieldWords } from './error-wording.js';
import type { ImportSessions } from './imports/import-session.js';
import type { LinkFlow } from './links/link-flow.js';
import type { LinkedAccounts } from './links/linked-accounts.js';
import type { Proxying } from './proxy/index.js';
import type { Responder } from './responder.js';
import type { TagDirectory } from './lists/tag-directory.js';
import type { FieldDirectory } from './lists/field-directory.js';

export interface BotContext {
  api: ApiClient;
  accounts: LinkedAccounts;
  alters: AlterDirectory;
  tags: TagDirectory;
  /** The system's custom profile fields. */
  fields: FieldDirectory;
  linkFlow: LinkFlow;
  proxying: Proxying;
  /** Import previews waiting for Confirm. */
  imports: ImportSessions;
  /** Where files given to the bot may be downloaded from (Discord's CDN). */
  attachmentOrigins: readonly string[];
}

interface Definition {
  toJSON(): RESTPostAPIApplicationCommandsJSONBody;
  name: string;
}

export interface SlashCommand {
  data: (SlashCommandBuilder | SlashCommandOptionsOnlyBuilder | SlashCommandSubcommandsOnlyBuilder) & Definition;
  /** Whether the answer is visible only to the caller (decided before any deferral). */
  ephemeral: boolean | ((interaction: ChatInputCommandInteraction) => boolean);
  execute(interaction: ChatInputCommandInteraction, context: BotContext, reply: Responder): Promise<void>;
  autocomplete?(interaction: AutocompleteInteraction, context: BotContext): Promise<void>;
  /** The service's field names → this command's options, so errors name what the user typed (declared beside the options). */
  fieldWords?: FieldWords;
  /** Buttons this command puts on its answers: presses whose custom id starts with `prefix` come back here. */
  buttons?: ButtonHandler[];
  /** A form one of its buttons opens: submissions whose custom id starts with `prefix` come back here. */
  modal?: ModalHandler;
}

export interface ModalHandler {
  prefix: string;
  submit(interaction: ModalSubmitInteraction, context: BotContext, reply: Responder): Promise<void>;
}

/**
 * A button's handler: presses whose custom id starts with `prefix` come here, whoever put the button
 * on a message (a command's answer, a direct message, the link prompt). Prefixes never start one
 * another, so a custom id has at most one handler.
 */
export type ButtonHandler = UpdatingButton | ReplyingButton;

interface UpdatingButton {
  prefix: string;
  replies?: undefined;
  /** Answers the press itself (typically by updating the message the button is on). */
  press(interaction: ButtonInteraction, context: BotContext): Promise<void>;
}

interface ReplyingButton {
  prefix: string;
  /** Answered through a private Responder (reply, or defer when slow), as a slash command is. */
  replies: 'privately';
  press(interaction: ButtonInteraction, context: BotContext, reply: Responder): Promise<void>;
}

export interface UserMenuCommand {
  data: ContextMenuCommandBuilder & Definition;
  execute(interaction: UserContextMenuCommandInteraction, context: BotContext, reply: Responder): Promise<void>;
}

export interface MessageMenuCommand {
  data: ContextMenuCommandBuilder & Definition;
  kind: 'message';
  /** Answers privately unless false. */
  ephemeral?: boolean;
  execute(interaction: MessageContextMenuCommandInteraction, context: BotContext, reply: Responder): Promise<void>;
  /** A form this command opens: submissions whose custom id starts with `prefix` come back here. */
  modal?: ModalHandler;
}

export type Command = SlashCommand | UserMenuCommand | MessageMenuCommand;
