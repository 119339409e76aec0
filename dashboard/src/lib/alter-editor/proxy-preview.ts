// "Try a message": what the bot would do with a message, by the project's own proxy engine
// (src/domain/proxy, pure TypeScript, bundled here so the preview and the bot cannot disagree) and
// its own webhook name rule. The system is the member's alters as saved, with the alter being
// edited as it is in the form; only proxy tags are tried (autoproxy depends on the channel).
import { decideProxy, type ProxyAlter } from '../../../../src/domain/proxy/index.js';
import { SystemFlags } from '../../../../src/domain/privacy-bits.js';
import { webhookName } from '../../../../src/bot/proxy/webhook-name.js';
import type { AlterDraft } from './draft.js';
import type { Alter } from './types.js';

export interface SystemSettings {
  flags: number | null;
  displayTag: string | null;
  /** Server id → that server's display tag, in place of `displayTag` there. */
  displayTagMap: Record<string, string>;
}

export type PreviewResult =
  | { kind: 'empty' }
  | { kind: 'none' }
  | { kind: 'too-long' }
  | { kind: 'this'; name: string; content: string; serverNames: Array<{ server: string; name: string }> }
  | { kind: 'other'; alterName: string };

const hasFlag = (flags: number | null, bit: number) => ((flags ?? 0) & bit) === bit;

interface TaggedAlter {
  alterId: number;
  username: string;
  proxyTags: Array<{ prefix: string | null; suffix: string | null }>;
}

function proxyAlter(alter: TaggedAlter, autoproxy: boolean): ProxyAlter {
  return {
    id: alter.alterId,
    name: alter.username,
    proxyTags: alter.proxyTags.map((tag) => ({ prefix: tag.prefix ?? '', suffix: tag.suffix ?? '' })),
    autoproxy,
  };
}

/** The name the bot would post under, in `server` (its display tag) or anywhere else. */
function postedName(name: string, draft: AlterDraft, system: SystemSettings, server?: string): string {
  return webhookName({
    name,
    pronouns: hasFlag(system.flags, SystemFlags.showPronouns) ? draft.pronouns : null,
    displayTag: (server === undefined ? undefined : system.displayTagMap[server]) ?? system.displayTag,
    fallback: draft.username,
  });
}

export function previewMessage(content: string, alterId: number, draft: AlterDraft, others: readonly Alter[], system: SystemSettings): PreviewResult {
  if (content.trim() === '') return { kind: 'empty' };
  // As the bot sees the system (domain/proxy-input.ts): nickname-mode alters never speak through
  // the webhook, so their tags stay in the text.
  const alters: ProxyAlter[] = others
    .filter((alter) => alter.alterId !== alterId && alter.alterMode !== 'nickname')
    .map((alter) => proxyAlter({ alterId: alter.alterId, username: alter.username ?? '', proxyTags: alter.proxyTags }, alter.autoproxyEnabled !== false));
  const tags = draft.proxyTags.filter((tag) => tag.prefix !== '' || tag.suffix !== '');
  if (draft.alterMode !== 'nickname') alters.push(proxyAlter({ alterId, username: draft.username, proxyTags: tags }, draft.autoproxyEnabled));
  alters.sort((a, b) => a.id - b.id);

  const { result } = decideProxy({
    message: { content, hasAttachment: false },
    system: { alters, caseSensitive: !hasFlag(system.flags, SystemFlags.tagsIgnoreCase), keepProxy: hasFlag(system.flags, SystemFlags.keepProxy) },
    autoproxy: { scopes: {}, latchExpirationMs: 0, front: null },
    now: Date.now(),
  });
  if (!result.proxy) return 'error' in result ? { kind: 'too-long' } : { kind: 'none' };
  if (result.alterId !== alterId) {
    const other = others.find((alter) => alter.alterId === result.alterId);
    return { kind: 'other', alterName: other?.displayName ?? other?.username ?? `alter ${result.alterId}` };
  }
  return {
    kind: 'this',
    name: postedName(draft.displayName, draft, system),
    content: result.content,
    serverNames: draft.nameMap.filter((row) => row.server.trim() !== '' && row.name !== '').map((row) => ({ server: row.server.trim(), name: postedName(row.name, draft, system, row.server.trim()) })),
  };
}
