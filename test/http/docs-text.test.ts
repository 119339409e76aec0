// What the API reference says about things the code decides: the installation's name (an operator's
// setting, written into the /docs page as text, never as markup), and the scope each event type
// needs, which the description must state as EVENT_SCOPES does.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_SCOPES, EVENT_TYPES } from '../../src/domain/events.js';
import { startTestServer, type TestServer } from '../support/server.js';

const HOSTILE_NAME = '<script>alert(1)</script><b>x</b> & "co"';

describe('the API reference text', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer('sqlite', { INSTANCE_NAME: HOSTILE_NAME });
  });
  afterAll(async () => server?.stop());

  it('shows INSTANCE_NAME in /docs as text, escaped, never as markup', async () => {
    for (const path of ['/docs', '/docs/']) {
      const page = await (await fetch(`${server.url}${path}`)).text();
      expect(page).not.toContain('<script>alert(1)');
      expect(page).not.toContain('<b>x</b>');
      expect(page).toContain('<title>&lt;script&gt;alert(1)&lt;/script&gt;&lt;b&gt;x&lt;/b&gt; &amp; &quot;co&quot; API reference</title>');
    }
    const document = (await (await fetch(`${server.url}/openapi.json`)).json()) as { info: { title: string } };
    expect(document.info.title).toBe(`${HOSTILE_NAME} API`);
  });

  it('states the scope each event type needs as the code decides it (EVENT_SCOPES)', async () => {
    const document = (await (await fetch(`${server.url}/openapi.json`)).json()) as { info: { description: string } };
    const events = document.info.description.split('## Events')[1]?.split('\n## ')[0]?.replace(/\s+/g, ' ') ?? '';
    const clause = /only those its grant's scopes read \(([^)]*)\)/.exec(events)?.[1];
    expect(clause, events).toBeDefined();
    // "alter and tag events `alters:read`; system and switch events `system:read`; …"
    const stated = new Map<string, string>();
    for (const part of (clause ?? '').split(';')) {
      const match = /^\s*(.+?) events? `([a-z:-]+)`\s*$/.exec(part);
      expect(match, part).not.toBeNull();
      for (const noun of (match?.[1] ?? '').split(/,\s*|\s+and\s+/)) stated.set(noun.trim(), match?.[2] ?? '');
    }
    for (const type of EVENT_TYPES) {
      const noun = type.split('.')[0] ?? '';
      expect(stated.get(noun), `${type} needs ${EVENT_SCOPES[type]}`).toBe(EVENT_SCOPES[type]);
    }
  });
});
