// An import's report as Discord shows it, worded the same in the preview and the result: counts per
// kind, renames, skipped entries with their reason, warnings. Long lists show their first lines and
// "…and N more", within Discord's embed limits (field values 1024, the whole embed 6000).
import { EmbedBuilder, escapeMarkdown } from 'discord.js';
import { shortenGraphemes } from '../../domain/proxy/text.js';
import type { ImportMode, ImportReport } from '../api-client.js';

const COLOR = 0x5865f2;
const FIELD_MAX = 1024;
/** One entry of a list, at most (a name, an id and a reason). */
const LINE_MAX = 200;

const FORMATS: Record<string, string> = {
  pluralkit: 'PluralKit',
  'pluralkit-legacy': 'PluralKit (an older file)',
  tupperbox: 'Tupperbox',
  simplyplural: 'Simply Plural',
};

export const MODES: Record<ImportMode, string> = {
  merge: '**merge**: alters and tags that match one you have are updated, the others are added',
  add: '**add**: everything in the file is added beside what you have',
  replace: '**replace**: your system becomes what the file holds; alters and tags not in it are deleted',
};

const number = (value: number) => value.toLocaleString('en-US');
/** Cut at a grapheme boundary (never inside an emoji), with an ellipsis. */
const cut = shortenGraphemes;
/** Untrusted text on one line, markdown shown as typed (cut first: escaping is the slow part). */
const plain = (text: string) => escapeMarkdown(cut(text, LINE_MAX).replace(/\s+/g, ' '));

/**
 * `items` as lines (`format` runs only on the lines shown) joined within `max` characters; what
 * does not fit becomes "…and N more". Pure.
 */
export function listWithin<T>(items: readonly T[], format: (item: T) => string, max = FIELD_MAX): string {
  const shown: string[] = [];
  let length = 0;
  for (const [index, item] of items.entries()) {
    const line = cut(format(item), LINE_MAX);
    const rest = items.length - index - 1;
    // Room for this line, and for the "more" line should anything follow it.
    const more = rest > 0 ? `\n…and ${number(rest)} more`.length : 0;
    if (length + (shown.length > 0 ? 1 : 0) + line.length + more > max) {
      shown.push(`…and ${number(items.length - index)} more`);
      return shown.join('\n');
    }
    shown.push(line);
    length += (shown.length > 1 ? 1 : 0) + line.length;
  }
  return shown.join('\n');
}

/** Identical warnings once, with how many times they came. */
export function groupWarnings(warnings: readonly string[]): string[] {
  const counted = new Map<string, number>();
  for (const warning of warnings) counted.set(warning, (counted.get(warning) ?? 0) + 1);
  return [...counted].map(([warning, times]) => (times > 1 ? `${warning} (×${number(times)})` : warning));
}

function countLine(counts: { created: number; updated?: number; unchanged: number; deleted: number }, nouns: { new: string; unchanged: string }): string {
  const parts = [`${number(counts.created)} ${nouns.new}`];
  if (counts.updated !== undefined) parts.push(`${number(counts.updated)} updated`);
  parts.push(`${number(counts.unchanged)} ${nouns.unchanged}`);
  if (counts.deleted > 0) parts.push(`**${number(counts.deleted)} deleted**`);
  return parts.join(' · ');
}

export type ReportStage = 'preview' | 'result';

export function importReportEmbed(report: ImportReport, stage: ReportStage): EmbedBuilder {
  const format = FORMATS[report.format] ?? report.format;
  const embed = new EmbedBuilder()
    .setColor(COLOR)
    .setTitle(stage === 'preview' ? `Import preview: ${format}` : `Imported from ${format}`)
    .setDescription(
      [
        `Mode ${MODES[report.mode]}.`,
        report.history ? 'Front history: included.' : 'Front history: not included (run `/import` with `history: True` to bring it).',
      ].join('\n'),
    )
    .addFields(
      { name: 'Alters', value: countLine(report.counts.alters, { new: 'new', unchanged: 'unchanged' }), inline: true },
      { name: 'Tags', value: countLine(report.counts.tags, { new: 'new', unchanged: 'unchanged' }), inline: true },
    );
  const fields = report.counts.profileFields;
  if (fields.created + fields.matched + fields.deleted > 0) {
    const parts = [`${number(fields.created)} new`, `${number(fields.matched)} already there`];
    if (fields.deleted > 0) parts.push(`**${number(fields.deleted)} deleted**`);
    embed.addFields({ name: 'Profile fields', value: parts.join(' · '), inline: true });
  }
  if (report.history) {
    embed.addFields({ name: 'Front history', value: countLine(report.counts.switches, { new: 'new switches', unchanged: 'already there' }), inline: true });
  }
  if (report.renames.length > 0) {
    const line = (rename: ImportReport['renames'][number]) => `• “${plain(rename.name)}” (${rename.source} ${plain(rename.id)}) → **${plain(rename.to)}**`;
    embed.addFields({ name: `Renamed (${number(report.renames.length)})`, value: listWithin(report.renames, line) });
  }
  if (report.skipped.length > 0) {
    const line = (entry: ImportReport['skipped'][number]) => `• “${plain(entry.name)}” (${entry.source} ${plain(entry.id)}): ${plain(entry.reason)}`;
    embed.addFields({ name: `Skipped (${number(report.skipped.length)})`, value: listWithin(report.skipped, line) });
  }
  const left = Object.entries(report.notImported ?? {}).filter(([, n]) => n > 0);
  if (left.length > 0) {
    embed.addFields({ name: 'Not imported', value: listWithin(left, ([kind, n]) => `• ${plain(kind)}: ${number(n)}`) });
  }
  const warnings = groupWarnings(report.warnings);
  if (warnings.length > 0) {
    embed.addFields({ name: `Warnings (${number(report.warnings.length)})`, value: listWithin(warnings, (warning) => `• ${plain(warning)}`) });
  }
  return embed;
}

/** How many alters a file holds, for the progress line; undefined when it cannot tell (the service decides). */
export function altersInFile(file: Buffer): number | undefined {
  try {
    const parsed = JSON.parse(file.toString('utf8').replace(/^\uFEFF/, '')) as unknown;
    if (typeof parsed !== 'object' || parsed === null) return undefined;
    const list = 'tuppers' in parsed ? parsed.tuppers : 'members' in parsed ? parsed.members : undefined;
    return Array.isArray(list) ? list.length : undefined;
  } catch {
    return undefined;
  }
}

export const altersNoun = (count: number) => `${number(count)} ${count === 1 ? 'alter' : 'alters'}`;
