/** The part of a pino logger the bot uses. */
export interface BotLog {
  info(object: object, message?: string): void;
  warn(object: object, message?: string): void;
  error(object: object, message?: string): void;
}
