// Linking a Discord account with the OAuth device flow: the bot asks the service for a device
// code, mints a one-time login link that opens the verification page already signed in as this
// Discord user, shows it as a button, then polls until the user approves (or denies, or the code
// expires) and edits its reply to say what happened.
import { setTimeout as sleep } from 'node:timers/promises';
import { ActionRowBuilder, ButtonBuilder, ButtonStyle, type RepliableInteraction } from 'discord.js';
import { ApiError, type ApiClient } from '../api-client.js';
import type { LinkedAccounts } from './linked-accounts.js';
import type { ButtonHandler } from '../command.js';
import type { Responder } from '../responder.js';

export const LINK_BUTTON_ID = 'link:start';

/** The link prompt's button: starts the device flow for whoever pressed it. */
export const linkButton: ButtonHandler = {
  prefix: LINK_BUTTON_ID,
  replies: 'privately',
  press: (interaction, context, reply) => context.linkFlow.start(interaction, reply),
};

export function linkPromptButton(label = 'Link your account'): ActionRowBuilder<ButtonBuilder> {
  return new ActionRowBuilder<ButtonBuilder>().addComponents(new ButtonBuilder().setCustomId(LINK_BUTTON_ID).setLabel(label).setStyle(ButtonStyle.Primary));
}

export function createLinkFlow(api: ApiClient, accounts: LinkedAccounts) {
  const running = new Set<AbortController>();

  async function poll(
    interaction: RepliableInteraction,
    responder: Responder,
    deviceCode: string,
    intervalSeconds: number,
    expiresAt: number,
    signal: AbortSignal,
    then: (() => Promise<string>) | undefined,
  ) {
    let interval = intervalSeconds;
    while (Date.now() < expiresAt) {
      await sleep(interval * 1000, undefined, { signal });
      let result;
      try {
        result = await api.pollDeviceToken(deviceCode);
      } catch (error) {
        if (error instanceof ApiError && error.type === 'access_denied') {
          await responder.send({ content: 'Linking was cancelled. Run `/link` when you want to try again.', components: [] });
          return;
        }
        if (error instanceof ApiError && error.type === 'expired_token') break;
        if (error instanceof ApiError && (error.kind === 'unavailable' || error.kind === 'timeout' || error.kind === 'rate-limited')) continue;
        throw error;
      }
      if (result.status === 'slow-down') interval += 5;
      if (result.status !== 'approved') continue;
      await accounts.save(interaction.user.id, { ...result.tokens, linkedAt: Date.now() });
      if (then) {
        await responder.send({ content: `Linked! ${await then()}`, components: [] });
        return;
      }
      const system = await api.getSystem(result.tokens.accessToken, '@me').catch(() => undefined);
      // A new system is private (the origin's default): say what others see and how to change it.
      const privateNote =
        system?.public === 0
          ? ' Everything in it is private for now: others see only “A private system”. `/system privacy all:public` shows it to everyone, or choose field by field.'
          : '';
      await responder.send({
        content: `Linked! Your Discord account now uses the system **${system?.systemName ?? 'you chose'}**.${privateNote}`,
        components: [],
      });
      return;
    }
    await responder.send({ content: 'The link request expired. Run `/link` to start again.', components: [] });
  }

  return {
    /**
     * Shows the sign-in button and links in the background; returns once the button is shown.
     * `then` runs once linked (a code to redeem: /link code:) and its sentence is the answer.
     */
    async start(interaction: RepliableInteraction, responder: Responder, then?: () => Promise<string>): Promise<void> {
      const device = await api.startDeviceAuthorization(interaction.user.id);
      const verification = new URL(device.verificationUriComplete);
      const url = await api.mintLoginLink(interaction.user.id, `${verification.pathname}${verification.search}`);
      const row = new ActionRowBuilder<ButtonBuilder>().addComponents(new ButtonBuilder().setStyle(ButtonStyle.Link).setURL(url).setLabel('Open switchboard'));
      await responder.send({
        content: `Open switchboard and approve the link (code **${device.userCode}**). This button works once and expires in a few minutes.`,
        components: [row],
      });
      const controller = new AbortController();
      running.add(controller);
      void poll(interaction, responder, device.deviceCode, device.intervalSeconds, Date.now() + device.expiresInSeconds * 1000, controller.signal, then)
        .catch(async (error: unknown) => {
          if (controller.signal.aborted) return;
          await responder.send({ content: 'Linking failed. Run `/link` to try again.', components: [] }).catch(() => undefined);
          void error;
        })
        .finally(() => running.delete(controller));
    },

    /** Stops every poll (shutdown). */
    stop(): void {
      for (const controller of running) controller.abort();
      running.clear();
    },
  };
}

export type LinkFlow = ReturnType<typeof createLinkFlow>;
