// Client ids are typed on command lines (`switchboard clients rotate-secret <id>`): one starting
// with "-" would be read as an option. Each id has a 1-in-64 chance of that without the rule, so
// 2,000 ids would all pass without it with a chance of about 1e-14.
import { describe, expect, it } from 'vitest';
import { newClientId } from '../../src/auth/clients.js';

describe('client ids', () => {
  it('are 22 base64url characters and never start with "-"', () => {
    const ids = Array.from({ length: 2000 }, () => newClientId());
    for (const id of ids) expect(id).toMatch(/^[A-Za-z0-9_][A-Za-z0-9_-]{21}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
