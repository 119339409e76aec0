// Answers one interaction exactly once, then edits: replies at once when the work is quick, and
// defers (Discord's "thinking…") when it takes longer than DEFER_AFTER_MS, so no interaction
// outlives Discord's 3-second window unanswered. Calls are queued so a deferral racing a reply
// can never answer twice.
import { MessageFlags, type InteractionReplyOptions, type ModalBuilder, type RepliableInteraction } from 'discord.js';
import { fitEmbeds } from './embeds.js';

export const DEFER_AFTER_MS = 1500;

export type ReplyPayload = Pick<InteractionReplyOptions, 'content' | 'embeds' | 'components' | 'files'>;

/** Every answer's embeds within Discord's limits for one message (embeds.ts). */
export const withinLimits = <T extends { embeds?: ReplyPayload['embeds'] }>(payload: T): T => (payload.embeds ? { ...payload, embeds: fitEmbeds(payload.embeds) } : payload);

export class Responder {
  private queue: Promise<unknown> = Promise.resolve();
  private state: 'none' | 'deferred' | 'replied' = 'none';
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly interaction: RepliableInteraction,
    readonly ephemeral: boolean,
  ) {}

  private enqueue<T>(step: () => Promise<T>): Promise<T> {
    const next = this.queue.then(step, step);
    this.queue = next.catch(() => undefined);
    return next;
  }

  private get flags() {
    return this.ephemeral ? MessageFlags.Ephemeral : undefined;
  }

  deferIfSlow(afterMs = DEFER_AFTER_MS): void {
    this.timer = setTimeout(() => {
      void this.enqueue(async () => {
        if (this.state !== 'none') return;
        await this.interaction.deferReply(this.flags === undefined ? {} : { flags: this.flags });
        this.state = 'deferred';
      }).catch(() => undefined);
    }, afterMs);
    this.timer.unref();
  }

  /** The answer: the first reply, or an edit of it. */
  send(answer: ReplyPayload): Promise<void> {
    const payload = withinLimits(answer);
    return this.enqueue(async () => {
      if (this.state === 'none') {
        await this.interaction.reply({ ...payload, ...(this.flags === undefined ? {} : { flags: this.flags }) });
        this.state = 'replied';
      } else {
        await this.interaction.editReply(payload);
      }
    });
  }

  /** Opens a form as the answer; false when the interaction was already answered or deferred. */
  showModal(modal: ModalBuilder): Promise<boolean> {
    return this.enqueue(async () => {
      if (this.state !== 'none' || !('showModal' in this.interaction)) return false;
      await this.interaction.showModal(modal);
      this.state = 'replied';
      return true;
    });
  }

  /** A message only the caller sees, even when the answer so far was public. */
  sendPrivately(answer: ReplyPayload): Promise<void> {
    const payload = withinLimits(answer);
    return this.enqueue(async () => {
      if (this.state === 'none') {
        await this.interaction.reply({ ...payload, flags: MessageFlags.Ephemeral });
        this.state = 'replied';
      } else if (this.ephemeral) {
        await this.interaction.editReply(payload);
      } else {
        // A public "thinking…" must not turn into a public error: remove it, answer privately.
        await this.interaction.deleteReply().catch(() => undefined);
        await this.interaction.followUp({ ...payload, flags: MessageFlags.Ephemeral });
      }
    });
  }

  finish(): void {
    clearTimeout(this.timer);
  }
}
