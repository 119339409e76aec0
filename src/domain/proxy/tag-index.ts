// Per-system precomputation: every (alter, tag) pair that takes part (R3), ranked once in the
// order R4 tries them (D1, D14), and indexed so a message asks only the pairs whose prefix starts
// it and whose suffix ends it.
//
// The index is two tries of keys (text.ts `keyOf`): prefixes read forwards, suffixes backwards.
// Walking T down each trie finds, by depth, the node every textually matching prefix (suffix) ends
// at, so membership is one comparison: path[pair's depth] === pair's node. Candidates come from
// the nodes on the two paths, merged in rank order; `matchTag` still decides, so the index only
// has to miss nothing. Keyed by whole tags rather than a first character, a thousand prefixes
// `a1:` … `a1000:` still leave one candidate for `a7: hi`.
import { matchTag, matchRegular, matchTagOnly, type Subject, type TagKeys } from './match.js';
import { codePointBefore, isSelector, keyOf, significantCodePoints, unitsOf } from './text.js';
import type { ProxySystem } from './types.js';

type TrieNode = {
  children: Map<number, TrieNode>;
  /** Ranks whose keys end here and whose other side is empty. */
  alone: number[];
  /** Ranks whose keys end here and whose other side has keys too. */
  paired: number[];
};

type Position = { prefixNode: TrieNode; prefixDepth: number; suffixNode: TrieNode; suffixDepth: number };

type TagIndex = {
  prefixes: TrieNode;
  suffixes: TrieNode;
  /** Ranks with no keys on either side: only the tag-only form of all-whitespace tags. */
  neither: number[];
};

export type CompiledPair = {
  rank: number;
  alterId: number;
  tag: TagKeys;
  regular: Position;
  loose: Position;
};

export type CompiledSystem = {
  readonly caseSensitive: boolean;
  readonly keepProxy: boolean;
  readonly alterIds: ReadonlySet<number>;
  /** The alters `front` and `latch` autoproxy may send as (those without `autoproxy: false`). */
  readonly autoproxyIds: ReadonlySet<number>;
  /** In the order R4 tries them. */
  readonly pairs: readonly CompiledPair[];
  readonly regular: TagIndex;
  readonly loose: TagIndex;
  /**
   * Whether some tag's loose sides differ from its own. If not, and T has no edge whitespace, the
   * tag-only form can only match where the regular form already did, and its walk is skipped.
   */
  readonly looseDiffers: boolean;
};

export type TagMatch = { alterId: number; inner: string };

const newNode = (): TrieNode => ({ children: new Map(), alone: [], paired: [] });

function insert(root: TrieNode, keys: readonly number[], backwards: boolean, rank: number, paired: boolean): { node: TrieNode; depth: number } {
  let node = root;
  for (let d = 0; d < keys.length; d++) {
    const key = keys[backwards ? keys.length - 1 - d : d] as number;
    let child = node.children.get(key);
    if (!child) {
      child = newNode();
      node.children.set(key, child);
    }
    node = child;
  }
  if (keys.length > 0) (paired ? node.paired : node.alone).push(rank);
  return { node, depth: keys.length };
}

function indexPair(index: TagIndex, prefix: readonly number[], suffix: readonly number[], rank: number): Position {
  const p = insert(index.prefixes, prefix, false, rank, suffix.length > 0);
  const s = insert(index.suffixes, suffix, true, rank, prefix.length > 0);
  if (prefix.length === 0 && suffix.length === 0) index.neither.push(rank);
  return { prefixNode: p.node, prefixDepth: p.depth, suffixNode: s.node, suffixDepth: s.depth };
}

const sameKeys = (a: readonly number[], b: readonly number[]) => a.length === b.length && a.every((key, i) => key === b[i]);

type Draft = { alterId: number; position: number; prefix: string; suffix: string; prefixCodePoints: number[]; suffixCodePoints: number[] };

function compareDrafts(a: Draft, b: Draft): number {
  const weight = b.prefixCodePoints.length + b.suffixCodePoints.length - (a.prefixCodePoints.length + a.suffixCodePoints.length);
  if (weight !== 0) return weight;
  if (a.alterId !== b.alterId) return a.alterId < b.alterId ? -1 : 1;
  if (a.position !== b.position) return a.position - b.position;
  // Only reachable with duplicate alter ids: any fixed order keeps the input's order irrelevant.
  if (a.prefix !== b.prefix) return a.prefix < b.prefix ? -1 : 1;
  if (a.suffix !== b.suffix) return a.suffix < b.suffix ? -1 : 1;
  return 0;
}

export function compileSystem(system: ProxySystem): CompiledSystem {
  const { caseSensitive, keepProxy } = system;
  const drafts: Draft[] = [];
  const alterIds = new Set<number>();
  const autoproxyIds = new Set<number>();
  for (const alter of system.alters) {
    alterIds.add(alter.id);
    if (alter.autoproxy !== false) autoproxyIds.add(alter.id);
    alter.proxyTags.forEach(({ prefix, suffix }, position) => {
      const prefixCodePoints = significantCodePoints(prefix);
      const suffixCodePoints = significantCodePoints(suffix);
      // R3: a tag of nothing but selectors would match every message.
      if (prefixCodePoints.length + suffixCodePoints.length === 0) return;
      drafts.push({ alterId: alter.id, position, prefix, suffix, prefixCodePoints, suffixCodePoints });
    });
  }
  drafts.sort(compareDrafts);

  const keys = (codePoints: readonly number[]) => codePoints.map((codePoint) => keyOf(codePoint, caseSensitive));
  const regular: TagIndex = { prefixes: newNode(), suffixes: newNode(), neither: [] };
  const loose: TagIndex = { prefixes: newNode(), suffixes: newNode(), neither: [] };
  let looseDiffers = false;
  const pairs = drafts.map((draft, rank): CompiledPair => {
    const tag: TagKeys = {
      prefix: keys(draft.prefixCodePoints),
      suffix: keys(draft.suffixCodePoints),
      loosePrefix: keys(significantCodePoints(draft.prefix.trimEnd())),
      looseSuffix: keys(significantCodePoints(draft.suffix.trimStart())),
    };
    if (!sameKeys(tag.prefix, tag.loosePrefix) || !sameKeys(tag.suffix, tag.looseSuffix)) looseDiffers = true;
    return {
      rank,
      alterId: draft.alterId,
      tag,
      regular: indexPair(regular, tag.prefix, tag.suffix, rank),
      loose: indexPair(loose, tag.loosePrefix, tag.looseSuffix, rank),
    };
  });
  return { caseSensitive, keepProxy, alterIds, autoproxyIds, pairs, regular, loose, looseDiffers };
}

/** The trie nodes T's start (end) reaches, by depth; mirrors `matchPrefix` / `matchSuffix`. */
function walkForwards(root: TrieNode, text: string, caseSensitive: boolean): TrieNode[] {
  const path = [root];
  let node = root;
  let i = 0;
  while (node.children.size > 0) {
    while (i < text.length && isSelector(text.charCodeAt(i))) i++;
    if (i >= text.length) break;
    const codePoint = text.codePointAt(i) as number;
    const child = node.children.get(keyOf(codePoint, caseSensitive));
    if (!child) break;
    path.push((node = child));
    i += unitsOf(codePoint);
  }
  return path;
}

function walkBackwards(root: TrieNode, text: string, caseSensitive: boolean): TrieNode[] {
  const path = [root];
  let node = root;
  let j = text.length;
  while (node.children.size > 0) {
    while (j > 0 && isSelector(text.charCodeAt(j - 1))) j--;
    if (j <= 0) break;
    const codePoint = codePointBefore(text, j);
    const child = node.children.get(keyOf(codePoint, caseSensitive));
    if (!child) break;
    path.push((node = child));
    j -= unitsOf(codePoint);
  }
  return path;
}

type Walk = { prefixPath: TrieNode[]; suffixPath: TrieNode[] };

function walk(index: TagIndex, text: string, caseSensitive: boolean, lists: number[][]): Walk {
  const prefixPath = walkForwards(index.prefixes, text, caseSensitive);
  const suffixPath = walkBackwards(index.suffixes, text, caseSensitive);
  let prefixPaired = 0;
  let suffixPaired = 0;
  for (let d = 1; d < prefixPath.length; d++) {
    const node = prefixPath[d] as TrieNode;
    if (node.alone.length > 0) lists.push(node.alone);
    prefixPaired += node.paired.length;
  }
  for (let d = 1; d < suffixPath.length; d++) {
    const node = suffixPath[d] as TrieNode;
    if (node.alone.length > 0) lists.push(node.alone);
    suffixPaired += node.paired.length;
  }
  // Pairs with both sides sit on both paths; listing the shorter side is enough, since membership
  // of the other side is checked per candidate.
  if (prefixPaired > 0 && suffixPaired > 0) {
    const path = prefixPaired <= suffixPaired ? prefixPath : suffixPath;
    for (let d = 1; d < path.length; d++) {
      const node = path[d] as TrieNode;
      if (node.paired.length > 0) lists.push(node.paired);
    }
  }
  if (index.neither.length > 0) lists.push(index.neither);
  return { prefixPath, suffixPath };
}

const onPaths = (position: Position, { prefixPath, suffixPath }: Walk) =>
  prefixPath[position.prefixDepth] === position.prefixNode && suffixPath[position.suffixDepth] === position.suffixNode;

/** R4: the first pair in rank order that matches T (R5), asking only indexed candidates. */
export function findWinner(compiled: CompiledSystem, t: Subject, trimmed: Subject): TagMatch | null {
  const { caseSensitive, pairs } = compiled;
  const lists: number[][] = [];
  const regularWalk = walk(compiled.regular, t.text, caseSensitive, lists);
  const looseWalk = trimmed.text !== t.text || compiled.looseDiffers ? walk(compiled.loose, trimmed.text, caseSensitive, lists) : null;
  if (lists.length === 0) return null;

  // Lists are sorted by rank; merge them lazily, since the first accepted rank ends the search.
  const cursors = new Array<number>(lists.length).fill(0);
  for (;;) {
    let rank = Infinity;
    for (let k = 0; k < lists.length; k++) {
      const head = (lists[k] as number[])[cursors[k] as number];
      if (head !== undefined && head < rank) rank = head;
    }
    if (rank === Infinity) return null;
    for (let k = 0; k < lists.length; k++) if ((lists[k] as number[])[cursors[k] as number] === rank) cursors[k] = (cursors[k] as number) + 1;

    const pair = pairs[rank] as CompiledPair;
    if (onPaths(pair.regular, regularWalk)) {
      const inner = matchRegular(pair.tag, t, caseSensitive);
      if (inner !== null) return { alterId: pair.alterId, inner };
    }
    if (looseWalk && onPaths(pair.loose, looseWalk) && matchTagOnly(pair.tag, trimmed, caseSensitive)) return { alterId: pair.alterId, inner: '' };
  }
}

/** R4 without the index: every pair in rank order. The reference the index must agree with. */
export function findWinnerLinear(compiled: CompiledSystem, t: Subject, trimmed: Subject): TagMatch | null {
  for (const pair of compiled.pairs) {
    const inner = matchTag(pair.tag, t, trimmed, compiled.caseSensitive);
    if (inner !== null) return { alterId: pair.alterId, inner };
  }
  return null;
}
