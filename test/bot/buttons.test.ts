// Every button goes through one registry (src/bot/interactions.ts): a press finds its handler by
// custom-id prefix, so no prefix may start another, or one handler would take the other's presses.
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../commands/index.js';
import type { ButtonHandler } from '../../src/bot/command.js';
import { buttonRegistry } from '../../src/bot/interactions.js';
import { LINK_BUTTON_ID, linkButton } from '../../src/bot/links/link-flow.js';

const press = async () => undefined;

describe('the button registry', () => {
  it('refuses a prefix that starts another', () => {
    const handlers: ButtonHandler[] = [
      { prefix: 'alter:', press },
      { prefix: 'alter:delete:', press },
    ];
    expect(() => buttonRegistry(handlers)).toThrow(/"alter:" also takes the presses of "alter:delete:"/);
  });

  it('holds the link button and every command’s buttons, none overlapping', () => {
    const handlers = [linkButton, ...COMMANDS.flatMap((command) => ('buttons' in command && command.buttons ? command.buttons : []))];
    expect(() => buttonRegistry(handlers)).not.toThrow();
    const prefixes = handlers.map((handler) => handler.prefix);
    // The paged lists' buttons are their commands' (alters, switches, tags), like every other.
    expect(prefixes).toEqual(expect.arrayContaining([LINK_BUTTON_ID, 'alters:', 'fronts:', 'tag-page:', 'alter-delete:', 'import:', 'operation-dm:']));
  });
});
