// The alter editor's pure parts (dashboard/src/lib/alter-editor/): the edit request made from the
// form (only what changed), the crop geometry, the privacy words, and "Try a message", which runs
// the project's own proxy engine and webhook name rule.
import { describe, expect, it } from 'vitest';
import { cropRectangle, exportSize } from '../../dashboard/src/lib/alter-editor/crop.js';
import { parseInline, parseMarkdown } from '../../dashboard/src/lib/alter-editor/markdown.js';
import { draftOf, editBetween, errorAnchor, hasChanges } from '../../dashboard/src/lib/alter-editor/draft.js';
import { ALTER_PRIVACY_SETTINGS, isShown, withShown } from '../../dashboard/src/lib/alter-editor/privacy.js';
import { previewMessage } from '../../dashboard/src/lib/alter-editor/proxy-preview.js';
import type { Alter } from '../../dashboard/src/lib/alter-editor/types.js';
import { AlterPrivacy, SystemFlags } from '../../src/domain/privacy-bits.js';

function alter(id: number, overrides: Partial<Alter> = {}): Alter {
  return {
    alterId: id,
    alterMode: 'webhook',
    autoproxyEnabled: true,
    avatarUrl: null,
    avatarUrlMap: {},
    banner: null,
    birthday: null,
    color: null,
    created: '2026-11-28T00:00:00.000Z',
    description: null,
    displayName: `Alter ${id}`,
    fields: {},
    flags: 0,
    lastMessageTimestamp: null,
    messageCount: 0,
    nameMap: [],
    profileFields: {},
    pronouns: null,
    proxyTags: [],
    public: 0,
    redacted: [],
    systemId: '1',
    tagIds: [],
    username: `alter${id}`,
    webhookAvatarUrl: null,
    ...overrides,
  };
}

const noFlags = { flags: 0, displayTag: null, displayTagMap: {} };

describe('the edit request', () => {
  it('is empty when nothing changed', () => {
    const stored = alter(1, { proxyTags: [{ id: 'a', prefix: '[', suffix: ']' }], nameMap: [{ server: '1'.repeat(18), name: 'A' }], profileFields: { '3': 'x' } });
    expect(editBetween(draftOf(stored), draftOf(stored))).toEqual({});
  });

  it('holds only the changed keys: cleared text as null, blank rows dropped, tags keeping their ids, removed field values as null', () => {
    const stored = alter(1, { pronouns: 'she/her', proxyTags: [{ id: 'keep', prefix: '[', suffix: ']' }], profileFields: { '3': 'x', '4': 'y' } });
    const draft = draftOf(stored);
    draft.pronouns = '  ';
    draft.proxyTags.push({ key: 99, prefix: '', suffix: '' }, { key: 100, prefix: 'a:', suffix: '' });
    draft.nameMap.push({ key: 101, server: ' ', name: '' }, { key: 102, server: ' 222222222222222222 ', name: 'Bee' });
    draft.profileFields['3'] = '';
    draft.profileFields['5'] = 'new';
    draft.public = withShown(draft.public, 'pronouns', true);
    expect(editBetween(draftOf(stored), draft)).toEqual({
      pronouns: null,
      proxyTags: [
        { id: 'keep', prefix: '[', suffix: ']' },
        { prefix: 'a:', suffix: null },
      ],
      nameMap: [{ server: '222222222222222222', name: 'Bee' }],
      public: AlterPrivacy.pronouns,
      profileFields: { '3': null, '5': 'new' },
    });
  });

  it('sends flags as a number when changed, an emptied input as 0, and a fraction as typed for the service to refuse', () => {
    const stored = alter(1, { flags: 5 });
    const draft = draftOf(stored);
    expect(draft.flags).toBe(5);
    draft.flags = 7;
    expect(editBetween(draftOf(stored), draft)).toEqual({ flags: 7 });
    draft.flags = null;
    expect(editBetween(draftOf(stored), draft)).toEqual({ flags: 0 });
    draft.flags = 1.5;
    expect(editBetween(draftOf(stored), draft)).toEqual({ flags: 1.5 });
  });

  it('tells unsaved changes from a form as saved (what leaving the editor asks about)', () => {
    const stored = alter(1, { pronouns: 'she/her' });
    const draft = draftOf(stored);
    expect(hasChanges(draftOf(stored), draft)).toBe(false);
    // A blank row the member added and left empty is not a change.
    draft.nameMap.push({ key: 200, server: '', name: '' });
    expect(hasChanges(draftOf(stored), draft)).toBe(false);
    draft.pronouns = 'they/them';
    expect(hasChanges(draftOf(stored), draft)).toBe(true);
    draft.pronouns = 'she/her';
    expect(hasChanges(draftOf(stored), draft)).toBe(false);
  });

  it('names where each refusal is shown', () => {
    expect(errorAnchor('displayName')).toBe('displayName');
    expect(errorAnchor('nameMap.2.name')).toBe('nameMap');
    expect(errorAnchor('profileFields.12')).toBe('profileFields.12');
  });
});

describe('the crop', () => {
  it('keeps the largest square of a wide image, placed by the offsets, and a smaller one when zoomed', () => {
    expect(cropRectangle(400, 200, 1, { zoom: 1, x: 0, y: 50 })).toEqual({ x: 0, y: 0, width: 200, height: 200 });
    expect(cropRectangle(400, 200, 1, { zoom: 1, x: 100, y: 50 })).toEqual({ x: 200, y: 0, width: 200, height: 200 });
    expect(cropRectangle(400, 200, 1, { zoom: 2, x: 50, y: 100 })).toEqual({ x: 150, y: 100, width: 100, height: 100 });
    expect(cropRectangle(1000, 1000, 2.5, { zoom: 1, x: 50, y: 0 })).toEqual({ x: 0, y: 0, width: 1000, height: 400 });
    // Out of range settings are held to the range.
    expect(cropRectangle(400, 200, 1, { zoom: 9, x: 150, y: -5 })).toEqual({ x: 350, y: 0, width: 50, height: 50 });
  });

  it('exports the kept pixels, never enlarged, within the long side', () => {
    expect(exportSize({ x: 0, y: 0, width: 200, height: 200 }, 1, 1024)).toEqual({ width: 200, height: 200 });
    expect(exportSize({ x: 0, y: 0, width: 3000, height: 3000 }, 1, 1024)).toEqual({ width: 1024, height: 1024 });
    expect(exportSize({ x: 0, y: 0, width: 5000, height: 2000 }, 2.5, 2048)).toEqual({ width: 2048, height: 819 });
  });
});

describe('privacy in words', () => {
  it('has one setting per bit of the domain, the alter itself first', () => {
    expect(ALTER_PRIVACY_SETTINGS.map((setting) => setting.bit).sort()).toEqual(Object.keys(AlterPrivacy).sort());
    expect(ALTER_PRIVACY_SETTINGS[0]?.bit).toBe('visible');
    const mask = withShown(withShown(0, 'name', true), 'birthday', true);
    expect(mask).toBe(AlterPrivacy.name | AlterPrivacy.birthday);
    expect(isShown(mask, 'birthday')).toBe(true);
    expect(isShown(withShown(mask, 'birthday', false), 'birthday')).toBe(false);
  });
});

describe('Try a message', () => {
  const rowan = alter(2, { displayName: 'Rowan', proxyTags: [{ id: 'r', prefix: 'r:', suffix: null }] });
  const ash = alter(1, { displayName: 'Ash', pronouns: 'they/them', proxyTags: [{ id: 'a', prefix: '[', suffix: ']' }], nameMap: [{ server: '333333333333333333', name: 'Ashy' }] });

  it('says whether the form’s tags match, under which name and with what text', () => {
    const draft = draftOf(ash);
    expect(previewMessage('  ', 1, draft, [ash, rowan], noFlags)).toEqual({ kind: 'empty' });
    expect(previewMessage('[hi there]', 1, draft, [ash, rowan], noFlags)).toEqual({
      kind: 'this',
      name: 'Ash',
      content: 'hi there',
      serverNames: [{ server: '333333333333333333', name: 'Ashy' }],
    });
    expect(previewMessage('r: hello', 1, draft, [ash, rowan], noFlags)).toEqual({ kind: 'other', alterName: 'Rowan' });
    expect(previewMessage('hello', 1, draft, [ash, rowan], noFlags)).toEqual({ kind: 'none' });
    // The form, not the stored alter: a tag changed in the form is tried at once.
    draft.proxyTags = [{ key: 1, id: 'a', prefix: 'a:', suffix: '' }];
    expect(previewMessage('[hi]', 1, draft, [ash, rowan], noFlags)).toEqual({ kind: 'none' });
    expect(previewMessage('A: hi', 1, draft, [ash, rowan], noFlags)).toEqual({ kind: 'none' });
    expect(previewMessage('A: hi', 1, draft, [ash, rowan], { ...noFlags, flags: SystemFlags.tagsIgnoreCase })).toMatchObject({ kind: 'this', content: 'hi' });
  });

  it('names the post as the bot would: pronouns when the system shows them, the display tag, per server', () => {
    const draft = draftOf(ash);
    const system = { flags: SystemFlags.showPronouns | SystemFlags.keepProxy, displayTag: '| Grove', displayTagMap: { '333333333333333333': '| G' } };
    expect(previewMessage('[hi]', 1, draft, [ash, rowan], system)).toEqual({
      kind: 'this',
      name: 'Ash (they/them) | Grove',
      content: '[hi]',
      serverNames: [{ server: '333333333333333333', name: 'Ashy (they/them) | G' }],
    });
  });

  it('leaves nickname-mode alters to the nickname, and tells a message too long without its tags', () => {
    const draft = draftOf(ash);
    draft.alterMode = 'nickname';
    expect(previewMessage('[hi]', 1, draft, [ash, rowan], noFlags)).toEqual({ kind: 'none' });
    expect(previewMessage(`[${'x'.repeat(2001)}]`, 1, draftOf(ash), [ash, rowan], noFlags)).toEqual({ kind: 'too-long' });
  });
});

describe('the Markdown preview', () => {
  it('parses Discord’s inline marks, nested, and leaves anything else as text', () => {
    expect(parseInline('a **b *c* d** `d *e*` ~~f~~ __g__ ||h|| [i](https://example.org/x) \\*j\\*')).toEqual([
      { kind: 'text', text: 'a ' },
      { kind: 'strong', children: [{ kind: 'text', text: 'b ' }, { kind: 'em', children: [{ kind: 'text', text: 'c' }] }, { kind: 'text', text: ' d' }] },
      { kind: 'text', text: ' ' },
      { kind: 'code', text: 'd *e*' },
      { kind: 'text', text: ' ' },
      { kind: 'strike', children: [{ kind: 'text', text: 'f' }] },
      { kind: 'text', text: ' ' },
      { kind: 'underline', children: [{ kind: 'text', text: 'g' }] },
      { kind: 'text', text: ' ' },
      { kind: 'spoiler', children: [{ kind: 'text', text: 'h' }] },
      { kind: 'text', text: ' ' },
      { kind: 'link', href: 'https://example.org/x', children: [{ kind: 'text', text: 'i' }] },
      { kind: 'text', text: ' *j*' },
    ]);
    // Markup and other schemes stay text: the page renders nodes, never HTML.
    expect(parseInline('<img src=x onerror=alert(1)> [x](javascript:alert(1)) snake_case_name 2 * 3 * 4')).toEqual([
      { kind: 'text', text: '<img src=x onerror=alert(1)> [x](javascript:alert(1)) snake_case_name 2 * 3 * 4' },
    ]);
  });

  it('parses blocks: paragraphs over lines, headings, subtext, quotes, items, code fences', () => {
    expect(parseMarkdown('# Title\nfirst\nsecond\n\n> said\n- one\n-# small\n```\n**raw**\n```\n```unclosed')).toEqual([
      { kind: 'heading', level: 1, children: [{ kind: 'text', text: 'Title' }] },
      { kind: 'paragraph', children: [{ kind: 'text', text: 'first\nsecond' }] },
      { kind: 'quote', children: [{ kind: 'text', text: 'said' }] },
      { kind: 'item', children: [{ kind: 'text', text: 'one' }] },
      { kind: 'subtext', children: [{ kind: 'text', text: 'small' }] },
      { kind: 'code', text: '**raw**' },
      // An unclosed fence is text.
      { kind: 'paragraph', children: [{ kind: 'text', text: '```unclosed' }] },
    ]);
  });
});
