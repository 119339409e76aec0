// Discord's documented limits that its OpenAPI document does not encode, as the fake applies them
// after a body has matched its schema: a message's embeds together (6,000 characters), URLs Discord
// refuses as URL_TYPE_INVALID_URL though they parse, legacy components, webhook usernames,
// autocomplete choices, modals, and command definitions. Each adds Discord's error (code and
// sentence) at the body path it names; request-checks.ts answers them as one 400.
// Lengths are code points, as Discord counts them (discord-api-docs #1315).
import type { Json } from './types.js';

export type Path = readonly (string | number)[];

export interface Problems {
  add(path: Path, code: string, message: string): void;
}

export type Limit = (body: unknown, problems: Problems, path?: Path) => void;

const length = (text: string): number => {
  let count = text.length;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        count--;
        i++;
      }
    }
  }
  return count;
};
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

const MAX_LENGTH = (max: number) => ({ code: 'BASE_TYPE_MAX_LENGTH', message: `Must be ${max} or fewer in length.` });
const BAD_LENGTH = (min: number, max: number) => ({ code: 'BASE_TYPE_BAD_LENGTH', message: `Must be between ${min} and ${max} in length.` });

// A URL Discord takes: http(s) with a host and nothing but RFC 3986 characters (a space, `|` or a
// stray `%` is URL_TYPE_INVALID_URL, whatever a browser makes of it), or an uploaded file.
const WELL_FORMED_URL = /^https?:\/\/[^/?#\s]+(?:[/?#](?:[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=]|%[0-9A-Fa-f]{2})*)?$/i;
function checkUrl(value: unknown, path: Path, problems: Problems, allowAttachment: boolean): void {
  if (typeof value !== 'string') return;
  if (allowAttachment && value.startsWith('attachment://')) return;
  if (!WELL_FORMED_URL.test(value)) problems.add(path, 'URL_TYPE_INVALID_URL', 'Not a well formed URL.');
}

// IS_COMPONENTS_V2: messages that lay out components instead of content and embeds.
const COMPONENTS_V2 = 1 << 15;

/** A message body (create, edit, webhook execute or edit, interaction response data). */
export const messageLimits: Limit = (body, problems, path = []) => {
  if (!isObject(body)) return;
  const content = str(body.content);
  if (content !== undefined && length(content) > 2000) problems.add([...path, 'content'], MAX_LENGTH(2000).code, MAX_LENGTH(2000).message);
  checkUrl(body.avatar_url, [...path, 'avatar_url'], problems, false);

  let total = 0;
  list(body.embeds).forEach((embed, index) => {
    if (!isObject(embed)) return;
    const at = [...path, 'embeds', index];
    for (const text of [
      embed.title,
      embed.description,
      isObject(embed.footer) ? embed.footer.text : undefined,
      isObject(embed.author) ? embed.author.name : undefined,
    ]) {
      if (typeof text === 'string') total += length(text);
    }
    list(embed.fields).forEach((field, fieldIndex) => {
      if (!isObject(field)) return;
      for (const key of ['name', 'value'] as const) {
        const text = str(field[key]);
        if (text !== undefined) total += length(text);
        if (text === undefined || text.trim() === '') problems.add([...at, 'fields', fieldIndex, key], 'BASE_TYPE_REQUIRED', 'This field is required');
      }
    });
    checkUrl(embed.url, [...at, 'url'], problems, false);
    for (const key of ['thumbnail', 'image'] as const) {
      const media = embed[key];
      if (isObject(media)) checkUrl(media.url, [...at, key, 'url'], problems, true);
    }
    if (isObject(embed.author)) {
      checkUrl(embed.author.url, [...at, 'author', 'url'], problems, false);
      checkUrl(embed.author.icon_url, [...at, 'author', 'icon_url'], problems, true);
    }
    if (isObject(embed.footer)) checkUrl(embed.footer.icon_url, [...at, 'footer', 'icon_url'], problems, true);
  });
  if (total > 6000) problems.add([...path, 'embeds'], 'MAX_EMBED_SIZE_EXCEEDED', 'Embed size exceeds maximum size of 6000');

  const flags = typeof body.flags === 'number' ? body.flags : 0;
  if ((flags & COMPONENTS_V2) === 0) legacyComponents(body.components, [...path, 'components'], problems);
};

/** Action rows of buttons or one select each, at most five rows, custom ids unique in the message. */
function legacyComponents(components: unknown, path: Path, problems: Problems): void {
  const rows = list(components);
  if (rows.length > 5) problems.add(path, MAX_LENGTH(5).code, MAX_LENGTH(5).message);
  const seen = new Set<string>();
  rows.forEach((row, index) => {
    if (!isObject(row)) return;
    if (row.type !== 1) {
      problems.add([...path, index, 'type'], 'UNION_TYPE_CHOICES', 'Value of field "type" must be one of (1,).');
      return;
    }
    const children = list(row.components);
    const selects = children.filter((child) => isObject(child) && child.type !== 2).length;
    if (selects > 0 && children.length > 1) problems.add([...path, index, 'components'], 'COMPONENT_LAYOUT_WIDTH_EXCEEDED', 'The specified component exceeds the maximum width');
    children.forEach((child, childIndex) => {
      if (!isObject(child)) return;
      const at = [...path, index, 'components', childIndex];
      const customId = str(child.custom_id);
      if (customId !== undefined) {
        if (seen.has(customId)) problems.add([...at, 'custom_id'], 'COMPONENT_CUSTOM_ID_DUPLICATED', 'Component custom id cannot be duplicated');
        seen.add(customId);
      }
      if (child.type === 2) {
        if (child.style === 5 ? child.url === undefined : customId === undefined) problems.add([...at, child.style === 5 ? 'url' : 'custom_id'], 'BASE_TYPE_REQUIRED', 'This field is required');
        if (child.label === undefined && child.emoji === undefined) problems.add([...at, 'label'], 'BASE_TYPE_REQUIRED', 'This field is required');
        if (child.style === 5) checkUrl(child.url, [...at, 'url'], problems, false);
      }
    });
  });
}

/**
 * Webhook names and per-message usernames: Discord strips zero-width spaces and trims, then wants
 * 1 to 80 characters, no "clyde" or "discord" anywhere (any case), and not "everyone" or "here".
 */
export function webhookNameProblem(value: unknown): { code: string; message: string } | undefined {
  if (typeof value !== 'string') return undefined;
  const seen = value.replaceAll('\u200b', '').trim();
  if (length(seen) < 1 || length(seen) > 80) return BAD_LENGTH(1, 80);
  const forbidden = /clyde|discord/i.exec(seen)?.[0];
  if (forbidden) return { code: 'USERNAME_INVALID_CONTAINS', message: `Username cannot contain "${forbidden.toLowerCase()}"` };
  if (/^(?:everyone|here)$/i.test(seen)) return { code: 'USERNAME_INVALID', message: `Username cannot be "${seen.toLowerCase()}"` };
  return undefined;
}

export const webhookNameLimit =
  (field: 'name' | 'username'): Limit =>
  (body, problems, path = []) => {
    if (!isObject(body)) return;
    const problem = webhookNameProblem(body[field]);
    if (problem) problems.add([...path, field], problem.code, problem.message);
  };

/** Autocomplete choices: the document allows values of 6,000 characters; Discord takes 100. */
export const autocompleteLimits: Limit = (body, problems, path = []) => {
  if (!isObject(body)) return;
  list(body.choices).forEach((choice, index) => {
    if (isObject(choice) && typeof choice.value === 'string' && length(choice.value) > 100) problems.add([...path, 'choices', index, 'value'], MAX_LENGTH(100).code, MAX_LENGTH(100).message);
  });
};

/** A modal: one to five rows, each one text input (or a label holding one). */
export const modalLimits: Limit = (body, problems, path = []) => {
  if (!isObject(body)) return;
  const rows = list(body.components);
  if (rows.length < 1 || rows.length > 5) problems.add([...path, 'components'], BAD_LENGTH(1, 5).code, BAD_LENGTH(1, 5).message);
  rows.forEach((row, index) => {
    if (isObject(row) && row.type === 1 && list(row.components).length !== 1) problems.add([...path, 'components', index, 'components'], BAD_LENGTH(1, 1).code, BAD_LENGTH(1, 1).message);
  });
};

export const interactionCallbackLimits: Limit = (body, problems) => {
  if (!isObject(body)) return;
  if (body.type === 4 || body.type === 5 || body.type === 7) messageLimits(body.data, problems, ['data']);
  if (body.type === 8) autocompleteLimits(body.data, problems, ['data']);
  if (body.type === 9) modalLimits(body.data, problems, ['data']);
};

// Command and option names: lower-case letters and digits of any script, `-`, `_` and `'`.
const NAME = /^[-_'\p{L}\p{N}\p{sc=Deva}\p{sc=Thai}]{1,32}$/u;
const CHAT_INPUT = 1;

function optionLimits(options: unknown, path: Path, problems: Problems): number {
  let size = 0;
  let optionalSeen = false;
  const names = new Set<string>();
  list(options).forEach((option, index) => {
    if (!isObject(option)) return;
    const at = [...path, index];
    const name = str(option.name) ?? '';
    const description = str(option.description) ?? '';
    size += length(name) + length(description);
    if (!NAME.test(name) || name !== name.toLowerCase()) problems.add([...at, 'name'], 'APPLICATION_COMMAND_INVALID_NAME', 'Command name is invalid');
    if (names.has(name)) problems.add([...at, 'name'], 'APPLICATION_COMMAND_OPTIONS_NAME_ALREADY_EXISTS', 'Option names must be unique');
    names.add(name);
    if (length(description) < 1 || length(description) > 100) problems.add([...at, 'description'], BAD_LENGTH(1, 100).code, BAD_LENGTH(1, 100).message);
    const subcommand = option.type === 1 || option.type === 2;
    if (!subcommand) {
      if (option.required === true && optionalSeen) problems.add([...at, 'required'], 'APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID', 'Required options must be placed before non-required options');
      if (option.required !== true) optionalSeen = true;
    }
    const choices = list(option.choices);
    if (choices.length > 0 && option.autocomplete === true) problems.add([...at, 'autocomplete'], 'APPLICATION_COMMAND_AUTOCOMPLETE_INVALID', 'Autocomplete cannot be set with choices');
    choices.forEach((choice, choiceIndex) => {
      if (!isObject(choice)) return;
      size += length(str(choice.name) ?? '') + length(String(choice.value ?? ''));
      if (typeof choice.value === 'string' && length(choice.value) > 100) problems.add([...at, 'choices', choiceIndex, 'value'], MAX_LENGTH(100).code, MAX_LENGTH(100).message);
    });
    if (list(option.options).length > 25) problems.add([...at, 'options'], MAX_LENGTH(25).code, MAX_LENGTH(25).message);
    size += optionLimits(option.options, [...at, 'options'], problems);
  });
  return size;
}

/** One command definition: its name, description, options and their size together. */
export const commandLimits: Limit = (body, problems, path = []) => {
  if (!isObject(body)) return;
  const type = typeof body.type === 'number' ? body.type : CHAT_INPUT;
  const name = str(body.name) ?? '';
  const description = str(body.description) ?? '';
  if (type === CHAT_INPUT) {
    if (!NAME.test(name) || name !== name.toLowerCase()) problems.add([...path, 'name'], 'APPLICATION_COMMAND_INVALID_NAME', 'Command name is invalid');
    if (length(description) < 1 || length(description) > 100) problems.add([...path, 'description'], BAD_LENGTH(1, 100).code, BAD_LENGTH(1, 100).message);
  } else if (description !== '') {
    problems.add([...path, 'description'], 'APPLICATION_COMMAND_CONTEXT_MENU_DESCRIPTION', 'Context menu commands cannot have description');
  }
  if (type !== CHAT_INPUT && list(body.options).length > 0) problems.add([...path, 'options'], 'APPLICATION_COMMAND_CONTEXT_MENU_OPTIONS', 'Context menu commands cannot have options');
  const size = length(name) + length(description) + optionLimits(body.options, [...path, 'options'], problems);
  if (size > 4000) problems.add(path, 'APPLICATION_COMMAND_TOO_LARGE', 'Command exceeds maximum size (4000)');
};

/** A whole command list (PUT): each command, names unique per type, 100 slash and 15 of each menu. */
export const commandListLimits: Limit = (body, problems) => {
  const commands = list(body);
  const perType = new Map<number, Set<string>>();
  commands.forEach((command, index) => {
    commandLimits(command, problems, [index]);
    if (!isObject(command)) return;
    const type = typeof command.type === 'number' ? command.type : CHAT_INPUT;
    const names = perType.get(type) ?? new Set<string>();
    perType.set(type, names);
    const name = str(command.name) ?? '';
    if (names.has(name)) problems.add([index, 'name'], 'APPLICATION_COMMANDS_DUPLICATE_NAME', `Application command names must be unique`);
    names.add(name);
  });
  for (const [type, names] of perType) {
    const max = type === CHAT_INPUT ? 100 : 15;
    if (names.size > max) problems.add([], 'APPLICATION_COMMAND_TOO_MANY', `Maximum number of application commands of type ${type} reached (${max})`);
  }
};
