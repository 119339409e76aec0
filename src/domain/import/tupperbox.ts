// A Tupperbox export read into the source model (§2, §3.5): tuppers become alters (private, as
// Tupperbox has no privacy), bracket pairs become proxy tags, groups become tags.
import { MAX_PROXY_TAGS } from '../alter.js';
import { DESCRIPTION_MAX, NAME_MAX } from '../values.js';
import type { ImportSource, SkippedEntity, SourceAlter, SourceSystem, SourceTag } from './model.js';
import { Notes, deriveUsername, normaliseBirthday, normaliseCount, normaliseProxyTags, normaliseText, normaliseUrl, parseInstant, plural } from './normalise.js';
import { GROUP, TUPPER, arrayOf, idOf, usableEntities, type Json } from './entities.js';
import { fallbackUsername } from './pluralkit.js';

export function readTupperbox(file: Json): ImportSource {
  const notes = new Notes();
  const skipped: SkippedEntity[] = [];
  const skip = (entity: Omit<SkippedEntity, 'source'>) => skipped.push({ source: 'tupperbox', ...entity });

  // Groups first: tuppers name theirs by id.
  const groups = new Map<string, SourceTag>();
  let groupTags = 0;
  let groupAvatars = 0;
  for (const { entity: group, id, name } of usableEntities(file.groups, GROUP, notes, skip)) {
    if (typeof group.tag === 'string' && group.tag.trim() !== '') groupTags++;
    if (typeof group.avatar === 'string' && group.avatar !== '') groupAvatars++;
    groups.set(id, {
      id,
      uuid: null,
      name,
      description: normaliseText(group.description, { max: DESCRIPTION_MAX, what: 'group description' }, notes, name),
      memberIds: [],
    });
  }
  if (groupTags > 0) notes.once(`${plural(groupTags, 'group tag')} ${groupTags === 1 ? 'was' : 'were'} not imported: tags here have no text added to proxied names`);
  if (groupAvatars > 0) notes.once(`${plural(groupAvatars, 'group avatar')} ${groupAvatars === 1 ? 'was' : 'were'} not imported: Tupperbox exports only a file name, not a link`);

  const alters: SourceAlter[] = [];
  const tupperTags = new Map<string, number>();
  let tagged = 0;
  for (const { entity: tupper, id, name } of usableEntities(file.tuppers, TUPPER, notes, skip)) {
    const brackets = arrayOf(tupper.brackets);
    if (brackets.length % 2 === 1) {
      notes.add('odd-brackets', name, (n, names) => `${plural(n, 'tupper')} had an odd number of brackets; the last one, without a partner, was dropped${names}`);
    }
    const pairs: Array<{ prefix: unknown; suffix: unknown }> = [];
    for (let i = 0; i + 1 < brackets.length; i += 2) pairs.push({ prefix: brackets[i], suffix: brackets[i + 1] });
    const tag = normaliseText(tupper.tag, { max: NAME_MAX, what: 'tupper tag' }, notes, name);
    if (tag !== null) {
      tagged++;
      tupperTags.set(tag, (tupperTags.get(tag) ?? 0) + 1);
    }
    const groupId = idOf(tupper.group_id);
    if (groupId !== null) {
      const group = groups.get(groupId);
      if (group) group.memberIds.push(id);
      else notes.add('unknown-group', name, (n, names) => `${plural(n, 'tupper')} named a group not in the file; the membership was left out${names}`);
    }
    alters.push({
      id,
      uuid: null,
      name,
      username: deriveUsername(name) ?? fallbackUsername('tb', id),
      displayName: normaliseText(tupper.nick, { max: NAME_MAX, what: 'tupper nickname' }, notes, name) ?? name,
      description: normaliseText(tupper.description, { max: DESCRIPTION_MAX, what: 'tupper description' }, notes, name),
      // Tupperbox writes a timestamp; year 0000 is its birthday without a year.
      birthday: normaliseBirthday(tupper.birthday, ['0000'], notes, name),
      avatarUrl: normaliseUrl(tupper.avatar_url, 'tupper avatar', notes, name),
      banner: normaliseUrl(tupper.banner, 'tupper banner', notes, name),
      createdAt: parseInstant(tupper.created_at),
      lastMessageAt: parseInstant(tupper.last_used),
      messageCount: normaliseCount(tupper.posts),
      proxyTags: normaliseProxyTags(pairs, MAX_PROXY_TAGS, notes, name),
      keepProxy: typeof tupper.show_brackets === 'boolean' ? tupper.show_brackets : null,
    });
  }

  // One tag shared by every tagged tupper, and no group tag, is the system's tag (PluralKit #9).
  const system: SourceSystem = {};
  if (tupperTags.size === 1 && groupTags === 0) {
    system.displayTag = [...tupperTags.keys()][0] ?? null;
    if (tagged < alters.length) notes.once(`the tag "${system.displayTag}" of ${plural(tagged, 'tupper')} became the system tag, shown on every alter's messages`);
  } else if (tupperTags.size > 0) {
    notes.once(`${plural(tagged, 'tupper')} had their own tags (${[...tupperTags.keys()].slice(0, 5).map((t) => JSON.stringify(t)).join(', ')}); alters here share the system tag, so these were not imported`);
  }

  return { format: 'tupperbox', source: 'tupperbox', sourceSystemId: '', system, alters, tags: [...groups.values()], switches: [], skipped, warnings: notes.list() };
}
