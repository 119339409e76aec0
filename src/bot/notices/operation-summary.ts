// What another app did to someone's system, in a few words per app: the text of the direct
// message the bot sends owners who keep `systemOperationDM` on. Pure: events in, lines out.
import type { FeedEvent } from '../api-client.js';

/** At most this many names in a list; more become a count ("edited 12 alters"). */
const MAX_NAMES = 3;

interface AppChanges {
  appName: string;
  switches: number[][];
  /** Past switches: distinct ids edited, and how many were deleted. */
  history: { edited: Set<number>; deleted: number };
  created: string[];
  edited: Map<number, string>;
  deleted: number;
  systemEdited: boolean;
  tags: { created: number; edited: number; deleted: number };
}

const bold = (name: string) => `**${name.replace(/([*_`~|\\])/g, '\\$1')}**`;

function names(list: readonly string[], noun: string, verb: string): string {
  if (list.length <= MAX_NAMES) return `${verb} ${list.map(bold).join(', ')}`;
  return `${verb} ${list.length} ${noun}`;
}

const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : noun.endsWith('h') ? 'es' : 's'}`;

/** The name the owner knows an alter by (the event carries the owner's view). */
function alterLabel(alter: { alterId: number; displayName: string | null; username: string | null }): string {
  return alter.displayName ?? alter.username ?? `alter ${alter.alterId}`;
}

/**
 * One line per app that changed the system, in the order the apps first acted: which app, then
 * what it did. Proxied messages are not changes to the system and are left out, as are changes the
 * bot made itself (the caller filters by actor). `alterName` names an alter of a switch.
 */
export function describeOperations(events: readonly FeedEvent[], alterName: (alterId: number) => string): string[] {
  const byApp = new Map<string, AppChanges>();
  for (const event of events) {
    const { actor } = event.data;
    if (actor.clientId === null) continue;
    let changes = byApp.get(actor.clientId);
    if (!changes) {
      changes = {
        appName: actor.clientName ?? actor.clientId,
        switches: [],
        history: { edited: new Set(), deleted: 0 },
        created: [],
        edited: new Map(),
        deleted: 0,
        systemEdited: false,
        tags: { created: 0, edited: 0, deleted: 0 },
      };
      byApp.set(actor.clientId, changes);
    }
    switch (event.type) {
      case 'switch.created':
        changes.switches.push(event.data.alterIds ?? []);
        break;
      case 'switch.updated':
        if (event.data.switchId !== undefined) changes.history.edited.add(event.data.switchId);
        break;
      case 'switch.deleted':
        changes.history.deleted += 1;
        break;
      case 'alter.created':
        if (event.data.alter) changes.created.push(alterLabel(event.data.alter));
        break;
      case 'alter.updated':
        if (event.data.alter) changes.edited.set(event.data.alter.alterId, alterLabel(event.data.alter));
        break;
      case 'alter.deleted':
        changes.deleted += 1;
        break;
      case 'system.updated':
        changes.systemEdited = true;
        break;
      case 'tag.created':
        changes.tags.created += 1;
        break;
      case 'tag.updated':
        changes.tags.edited += 1;
        break;
      case 'tag.deleted':
        changes.tags.deleted += 1;
        break;
      default:
        break; // message.proxied and anything newer: not a change to the system worth a message
    }
  }
  const lines: string[] = [];
  for (const changes of byApp.values()) {
    const done: string[] = [];
    const last = changes.switches.at(-1);
    if (last) {
      const whom = last.length === 0 ? undefined : last.map((id) => bold(alterName(id))).join(', ');
      if (changes.switches.length === 1) done.push(whom ? `switched the front to ${whom}` : 'switched out (nobody is fronting)');
      else done.push(`switched the front ${changes.switches.length} times, last ${whom ? `to ${whom}` : 'out (nobody is fronting)'}`);
    }
    if (changes.history.edited.size > 0) done.push(`edited ${count(changes.history.edited.size, 'switch')} in your front history`);
    if (changes.history.deleted > 0) done.push(`deleted ${count(changes.history.deleted, 'switch')} from your front history`);
    if (changes.created.length > 0) done.push(names(changes.created, 'alters', 'created'));
    const edited = [...changes.edited.values()];
    if (edited.length > 0) done.push(names(edited, 'alters', 'edited'));
    if (changes.deleted > 0) done.push(`deleted ${count(changes.deleted, 'alter')}`);
    if (changes.systemEdited) done.push('edited your system profile');
    const tagParts = [
      changes.tags.created > 0 ? `created ${count(changes.tags.created, 'tag')}` : '',
      changes.tags.edited > 0 ? `edited ${count(changes.tags.edited, 'tag')}` : '',
      changes.tags.deleted > 0 ? `deleted ${count(changes.tags.deleted, 'tag')}` : '',
    ].filter(Boolean);
    done.push(...tagParts);
    if (done.length > 0) lines.push(`${bold(changes.appName)} ${done.join(' · ')}.`);
  }
  return lines;
}
