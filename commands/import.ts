// /import file|link [mode] [history] [custom-fronts] [friends-public]: bring a system from
// PluralKit, Tupperbox or Simply Plural (the last two options are Simply Plural's). The file is
// downloaded from Discord's CDN, checked by the service (a dry run), and shown as a private
// preview with Confirm and Cancel. Confirm sends the same bytes again with the preview's one-time
// Idempotency-Key, so a double click or a retried press imports once.
import {
  ActionRowBuilder,
  ButtonBuilder,
  ButtonStyle,
  MessageFlags,
  SlashCommandBuilder,
  type ButtonInteraction,
  type ChatInputCommandInteraction,
} from 'discord.js';
import { ApiError, type ImportMode, type ImportReport } from '../src/bot/api-client.js';
import type { BotContext, SlashCommand } from '../src/bot/command.js';
import { checkAttachmentLink, downloadAttachment, formatBytes } from '../src/bot/imports/discord-attachment.js';
import { IMPORT_MAX_BYTES } from '../src/bot/imports/import-session.js';
import { altersInFile, altersNoun, importReportEmbed } from '../src/bot/imports/import-report.js';
import { messageFor } from '../src/bot/interactions.js';
import { linkPromptButton } from '../src/bot/links/link-flow.js';
import { NotLinkedError } from '../src/bot/links/linked-accounts.js';
import type { Responder } from '../src/bot/responder.js';
import { fitEmbeds } from '../src/bot/embeds.js';

const PREFIX = 'import:';
const DOWNLOAD_TIMEOUT_MS = 30_000;
/** How often a long step says it is still running. */
const PROGRESS_EVERY_MS = 5_000;

const TOO_BIG = `That file is too big to import: at most ${formatBytes(IMPORT_MAX_BYTES)}.`;
const RELINK = 'Importing needs more permission than your link to switchboard gives: run `/link` again (once).';

function previewButtons(previewId: string, mode: ImportMode): ActionRowBuilder<ButtonBuilder> {
  return new ActionRowBuilder<ButtonBuilder>().addComponents(
    new ButtonBuilder()
      .setCustomId(`${PREFIX}confirm:${previewId}`)
      .setLabel(mode === 'replace' ? 'Confirm: replace my system' : 'Confirm')
      .setStyle(mode === 'replace' ? ButtonStyle.Danger : ButtonStyle.Success),
    new ButtonBuilder().setCustomId(`${PREFIX}cancel:${previewId}`).setLabel('Cancel').setStyle(ButtonStyle.Secondary),
  );
}

/** Runs `work`, saying every few seconds that `label` is still going. */
async function withProgress<T>(say: (content: string) => Promise<unknown>, label: string, work: () => Promise<T>): Promise<T> {
  const started = Date.now();
  let saying: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    saying = saying.then(() => say(`${label} (${Math.round((Date.now() - started) / 1000)} s)`)).catch(() => undefined);
  }, PROGRESS_EVERY_MS);
  try {
    return await work();
  } finally {
    clearInterval(timer);
    await saying;
  }
}

const insufficientScope = (error: unknown) => error instanceof ApiError && error.type === 'invalid-scopes';

async function execute(interaction: ChatInputCommandInteraction, { api, accounts, imports, attachmentOrigins }: BotContext, reply: Responder) {
  const attachment = interaction.options.getAttachment('file');
  const link = interaction.options.getString('link');
  if ((attachment === null) === (link === null)) {
    await reply.send({ content: 'Give the export file either as `file` (attach it) or as `link` (paste the link of a file uploaded to Discord), one of the two.' });
    return;
  }
  const choice = {
    mode: (interaction.options.getString('mode') ?? 'merge') as ImportMode,
    history: interaction.options.getBoolean('history') ?? false,
    customFronts: interaction.options.getString('custom-fronts') === 'skip' ? ('skip' as const) : ('import' as const),
    friendsArePublic: interaction.options.getBoolean('friends-public') ?? false,
  };
  const userId = interaction.user.id;
  // Before any download: nothing is fetched for someone who cannot import.
  if (!(await accounts.isLinked(userId))) throw new NotLinkedError('never');
  if (attachment && attachment.size > IMPORT_MAX_BYTES) {
    await reply.send({ content: TOO_BIG });
    return;
  }
  const source = checkAttachmentLink(attachment?.url ?? link ?? '', attachmentOrigins);
  if (!source.ok) {
    await reply.send({ content: source.reason });
    return;
  }

  await reply.send({ content: 'Downloading the file…' });
  const file = await downloadAttachment(source.url.href, { origins: attachmentOrigins, maxBytes: IMPORT_MAX_BYTES, timeoutMs: DOWNLOAD_TIMEOUT_MS });
  const alters = altersInFile(file);
  const checking = alters === undefined ? 'Checking the file…' : `Checking ${altersNoun(alters)}…`;
  await reply.send({ content: checking });
  let report: ImportReport;
  try {
    report = await withProgress(
      (content) => reply.send({ content }),
      checking,
      () => accounts.withToken(userId, (token) => api.importSystem(token, file, { ...choice, dryRun: true })),
    );
  } catch (error) {
    if (insufficientScope(error)) {
      await reply.send({ content: RELINK, components: [linkPromptButton('Link again')] });
      return;
    }
    if (error instanceof ApiError && error.kind === 'problem') {
      await reply.send({ content: `That file cannot be imported: ${error.message}` });
      return;
    }
    throw error;
  }
  const preview = await imports.open(userId, file, choice);
  await reply.send({
    content: `Nothing is imported until you press **Confirm**. This preview expires <t:${Math.floor(preview.expiresAt / 1000)}:R>.`,
    embeds: [importReportEmbed(report, 'preview')],
    components: [previewButtons(preview.id, choice.mode)],
  });
}

const privately = (interaction: ButtonInteraction, content: string) => interaction.reply({ content, flags: MessageFlags.Ephemeral });
const EXPIRED = { content: 'This import preview has expired. Run `/import` again.', embeds: [], components: [] };
const alreadyDone = (report: ImportReport) => ({ content: 'Already imported: this is what the import did.', embeds: fitEmbeds([importReportEmbed(report, 'result')]), components: [] });

async function confirm(interaction: ButtonInteraction, { api, accounts, imports }: BotContext, previewId: string) {
  const claim = await imports.claim(previewId, interaction.user.id);
  if (claim.status === 'not-yours') return void (await privately(interaction, 'Only the person who ran `/import` can confirm it.'));
  if (claim.status === 'running') return void (await privately(interaction, 'This import is already running.'));
  if (claim.status === 'expired') return void (await interaction.update(EXPIRED));
  if (claim.status === 'done') return void (await interaction.update(alreadyDone(claim.report)));

  const count = altersInFile(claim.file);
  const importing = count === undefined ? 'Importing…' : `Importing ${altersNoun(count)}…`;
  try {
    await interaction.update({ content: importing, components: [] });
    const report = await withProgress(
      (content) => interaction.editReply({ content }),
      importing,
      () =>
        accounts.withToken(interaction.user.id, (token) =>
          api.importSystem(token, claim.file, { ...claim.choice, dryRun: false, idempotencyKey: claim.idempotencyKey }),
        ),
    );
    await imports.complete(previewId, claim.attempt, report);
    await interaction.editReply({ content: 'Done.', embeds: fitEmbeds([importReportEmbed(report, 'result')]), components: [] });
  } catch (error) {
    // A refusal of the file stands; anything else (the service away or slow, the link expired) may
    // be retried with the same key: an import that did land meanwhile is not applied again.
    const final = error instanceof ApiError && error.kind === 'problem' && !insufficientScope(error);
    await imports.fail(previewId, claim.attempt, !final);
    if (final) {
      await interaction.editReply({ content: `The import was refused, and nothing was changed: ${error.message}`, components: [] });
      return;
    }
    const { content, linkPrompt } = insufficientScope(error) ? { content: RELINK, linkPrompt: true } : messageFor(error);
    const rows = [previewButtons(previewId, claim.choice.mode), ...(linkPrompt ? [linkPromptButton()] : [])];
    await interaction.editReply({ content: `${content}\nPress **Confirm** to try again: an import that went through is never applied twice.`, components: rows });
    if (!(error instanceof ApiError || error instanceof NotLinkedError)) throw error;
  }
}

async function cancel(interaction: ButtonInteraction, { imports }: BotContext, previewId: string) {
  const result = await imports.cancel(previewId, interaction.user.id);
  if (result.status === 'not-yours') return void (await privately(interaction, 'Only the person who ran `/import` can cancel it.'));
  if (result.status === 'running') return void (await privately(interaction, 'The import is already running and can no longer be cancelled.'));
  if (result.status === 'expired') return void (await interaction.update(EXPIRED));
  if (result.status === 'done') return void (await interaction.update(alreadyDone(result.report)));
  await interaction.update({ content: 'Import cancelled: nothing was changed.', embeds: [], components: [] });
}

export const importCommand = {
  data: new SlashCommandBuilder()
    .setName('import')
    .setDescription('Import a system from a PluralKit, Tupperbox or Simply Plural export file (a preview first)')
    .addAttachmentOption((o) => o.setName('file').setDescription('The export file (.json)'))
    .addStringOption((o) => o.setName('link').setDescription('Or: the link of the file uploaded to Discord').setMaxLength(2000))
    .addStringOption((o) =>
      o
        .setName('mode')
        .setDescription('What happens to what you already have (default: merge)')
        .addChoices(
          { name: 'merge: update matching alters and tags, add the others', value: 'merge' },
          { name: 'add: add everything beside what you have', value: 'add' },
          { name: 'replace: delete what is not in the file', value: 'replace' },
        ),
    )
    .addBooleanOption((o) => o.setName('history').setDescription('Also import front history (switches); default: no'))
    .addStringOption((o) =>
      o
        .setName('custom-fronts')
        .setDescription('Simply Plural custom fronts (default: import them as alters)')
        .addChoices(
          { name: 'import: as alters in a "Custom fronts" tag', value: 'import' },
          { name: 'skip: leave them out (their front history leaves gaps)', value: 'skip' },
        ),
    )
    .addBooleanOption((o) => o.setName('friends-public').setDescription('Simply Plural: make public what friends could see; default: no, all private')),
  ephemeral: true,
  execute,
  buttons: [
    {
      prefix: PREFIX,
      async press(interaction, context) {
        const match = /^import:(confirm|cancel):([\w-]{1,40})$/.exec(interaction.customId);
        if (!match) return;
        await (match[1] === 'confirm' ? confirm : cancel)(interaction, context, match[2] as string);
      },
    },
  ],
} satisfies SlashCommand;
