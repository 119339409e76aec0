// commands/index.ts is the list the bot registers and answers: a command file left out of it is a
// command nobody can run, and nothing else would notice. Every file in commands/ must export
// exactly the commands the list holds, each once, under a name of its own.
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../commands/index.js';

const folder = fileURLToPath(new URL('../../commands/', import.meta.url));
const files = readdirSync(folder).filter((name) => name.endsWith('.ts') && name !== 'index.ts');

/** What a module exports that looks like a command: a definition with a handler. */
const commandsOf = (module: Record<string, unknown>) =>
  Object.values(module).filter((value): value is (typeof COMMANDS)[number] => typeof value === 'object' && value !== null && 'data' in value && 'execute' in value);

describe('the command list', () => {
  it.each(files)('holds every command of commands/%s', async (file) => {
    const exported = commandsOf((await import(`../../commands/${file}`)) as Record<string, unknown>);
    expect(exported.length, `${file} exports no command`).toBeGreaterThan(0);
    for (const command of exported) expect(COMMANDS, `${file}: ${command.data.toJSON().name} is not in commands/index.ts`).toContain(command);
  });

  it('names each command once', () => {
    const names = COMMANDS.map((command) => `${command.data.toJSON().type ?? 1}:${command.data.toJSON().name}`);
    expect(new Set(names).size).toBe(names.length);
  });
});
