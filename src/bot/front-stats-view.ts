// `/front stats` as a ranked list with bars: who fronted how long in the period, their share, how
// often they came into the front and when they last did. Pure: the statistics and names in, an
// embed out.
import { EmbedBuilder } from 'discord.js';
import type { FrontStats } from '../domain/front-stats.js';

const BAR = 12;

/** A share as a bar of 12 blocks, never empty for a share above 0. */
export function bar(share: number): string {
  const filled = share <= 0 ? 0 : Math.max(1, Math.round(share * BAR));
  return `${'█'.repeat(Math.min(BAR, filled))}${'░'.repeat(BAR - Math.min(BAR, filled))}`;
}

/** "3d 4h", "2h", "5m 20s", "0s": the largest unit and the next one when it is not 0. */
export function duration(seconds: number): string {
  const units: Array<[string, number]> = [['d', 86_400], ['h', 3600], ['m', 60], ['s', 1]];
  const total = Math.round(seconds);
  const index = units.findIndex(([, size]) => total >= size);
  if (index < 0) return '0s';
  const [unit, size] = units[index] as [string, number];
  const next = units[index + 1];
  const rest = next ? Math.floor((total % size) / next[1]) : 0;
  return `${Math.floor(total / size)}${unit}${next && rest > 0 ? ` ${rest}${next[0]}` : ''}`;
}

const percent = (share: number) => `${(share * 100).toFixed(share > 0 && share < 0.1 ? 1 : 0)}%`;

/** The statistics as an embed; `nameOf` names an alter (the viewer's view of it). */
export function frontStatsEmbed(stats: FrontStats, nameOf: (alterId: number) => string, title: string): EmbedBuilder {
  const lines = stats.alters.slice(0, 25).map((row, index) => {
    const name = row.alterId === null ? '*Alters hidden from you*' : `**${nameOf(row.alterId)}**`;
    const entries = row.switches === null ? '' : ` · ${row.switches}× in`;
    const last = row.lastFronted === null ? '' : ` · last <t:${Math.floor(Date.parse(row.lastFronted) / 1000)}:R>`;
    return `${index + 1}. ${name}\n\`${bar(row.share)}\` ${percent(row.share)} · ${duration(row.seconds)}${entries}${last}`;
  });
  if (stats.alters.length > 25) lines.push(`…and ${stats.alters.length - 25} more.`);
  lines.push(`**Nobody** \`${bar(stats.nobody.share)}\` ${percent(stats.nobody.share)} · ${duration(stats.nobody.seconds)}`);
  const from = Math.floor(Date.parse(stats.from) / 1000);
  const to = Math.floor(Date.parse(stats.to) / 1000);
  return new EmbedBuilder()
    .setTitle(title.slice(0, 256))
    .setColor(0x5865f2)
    .setDescription((from === to ? 'No switches in this period.' : stats.alters.length === 0 ? 'Nobody fronted in this period.' : lines.join('\n')).slice(0, 4096))
    .setFooter({ text: 'From the first switch in the period on; co-fronting counts for each co-fronter.' })
    .addFields({ name: 'Period', value: `<t:${from}:f> – <t:${to}:f>` });
}
