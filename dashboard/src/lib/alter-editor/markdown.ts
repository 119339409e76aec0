// The description's preview: Discord's Markdown as a tree of plain nodes that the page renders as
// elements (never as HTML text, so nothing typed can become markup, a script or a style). Blocks:
// paragraphs, headings (#, ##, ###), subtext (-#), quotes (>), list items (- or *), code blocks
// (```); inline: **bold**, *italic* or _italic_, __underline__, ~~strike~~, ||spoiler||, `code`
// and [masked links](https://…) to http(s) addresses only.

export type Inline =
  | { kind: 'text'; text: string }
  | { kind: 'code'; text: string }
  | { kind: 'strong' | 'em' | 'underline' | 'strike' | 'spoiler'; children: Inline[] }
  | { kind: 'link'; href: string; children: Inline[] };

export type Block =
  | { kind: 'paragraph' | 'quote' | 'item' | 'subtext'; children: Inline[] }
  | { kind: 'heading'; level: 1 | 2 | 3; children: Inline[] }
  | { kind: 'code'; text: string };

type Wrapping = 'strong' | 'em' | 'underline' | 'strike' | 'spoiler';

// Tried at every position, longest delimiters first, so `**` is bold before `*` is italic.
const INLINE: Array<{ pattern: RegExp; make: (match: RegExpExecArray) => Inline }> = [
  { pattern: /`([^`\n]+)`/y, make: (match) => ({ kind: 'code', text: match[1] ?? '' }) },
  { pattern: /\[([^\]\n]+)\]\((https?:\/\/[^\s)]+)\)/y, make: (match) => ({ kind: 'link', href: match[2] ?? '', children: parseInline(match[1] ?? '') }) },
  ...(
    [
      [/\*\*(?=\S)([\s\S]+?)\*\*/y, 'strong'],
      [/__(?=\S)([\s\S]+?)__/y, 'underline'],
      [/~~(?=\S)([\s\S]+?)~~/y, 'strike'],
      [/\|\|(?=\S)([\s\S]+?)\|\|/y, 'spoiler'],
      [/\*(?=\S)([^*]+?)\*/y, 'em'],
      [/_(?=\S)([^_]+?)_(?![A-Za-z0-9])/y, 'em'],
    ] as Array<[RegExp, Wrapping]>
  ).map(([pattern, kind]) => ({ pattern, make: (match: RegExpExecArray): Inline => ({ kind, children: parseInline(match[1] ?? '') }) })),
];

export function parseInline(text: string): Inline[] {
  const nodes: Inline[] = [];
  let plain = '';
  let index = 0;
  outer: while (index < text.length) {
    // A backslash keeps the next character as it is.
    if (text[index] === '\\' && index + 1 < text.length && /[\\*_~|`[\]()#>-]/.test(text[index + 1] ?? '')) {
      plain += text[index + 1];
      index += 2;
      continue;
    }
    for (const { pattern, make } of INLINE) {
      pattern.lastIndex = index;
      const match = pattern.exec(text);
      if (match) {
        if (plain) nodes.push({ kind: 'text', text: plain });
        plain = '';
        // Read before `make`, whose own parse reuses the same (stateful) patterns.
        index = pattern.lastIndex;
        nodes.push(make(match));
        continue outer;
      }
    }
    plain += text[index];
    index += 1;
  }
  if (plain) nodes.push({ kind: 'text', text: plain });
  return nodes;
}

export function parseMarkdown(source: string): Block[] {
  const blocks: Block[] = [];
  const lines = source.replace(/\r\n?/g, '\n').split('\n');
  let paragraph: string[] = [];
  const flush = () => {
    if (paragraph.length > 0) blocks.push({ kind: 'paragraph', children: parseInline(paragraph.join('\n')) });
    paragraph = [];
  };
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index] ?? '';
    if (line.startsWith('```')) {
      flush();
      const code: string[] = [];
      let end = index + 1;
      while (end < lines.length && !(lines[end] ?? '').startsWith('```')) code.push(lines[end++] ?? '');
      if (end === lines.length) {
        // No closing fence: the line is text after all.
        paragraph.push(line);
        continue;
      }
      blocks.push({ kind: 'code', text: code.join('\n') });
      index = end;
      continue;
    }
    const heading = /^(#{1,3}) (.+)$/.exec(line);
    const subtext = /^-# (.+)$/.exec(line);
    const quote = /^> ?(.*)$/.exec(line);
    const item = /^\s*[-*] (.+)$/.exec(line);
    if (heading) {
      flush();
      blocks.push({ kind: 'heading', level: (heading[1]?.length ?? 1) as 1 | 2 | 3, children: parseInline(heading[2] ?? '') });
    } else if (subtext) {
      flush();
      blocks.push({ kind: 'subtext', children: parseInline(subtext[1] ?? '') });
    } else if (quote) {
      flush();
      blocks.push({ kind: 'quote', children: parseInline(quote[1] ?? '') });
    } else if (item) {
      flush();
      blocks.push({ kind: 'item', children: parseInline(item[1] ?? '') });
    } else if (line.trim() === '') {
      flush();
    } else {
      paragraph.push(line);
    }
  }
  flush();
  return blocks;
}
