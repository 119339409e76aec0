// The settings table's machinery on a small table of its own: the shape over the environment, the
// value, and groups of variables that go together (config.test.ts covers the real table).
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { environmentShape, incompleteGroups, resolve, setting, together } from '../../src/config/settings-table.js';

const table = {
  name: setting('NAME', z.string().default('anon')),
  limits: { perDay: setting('PER_DAY', z.coerce.number().default(5)) },
  client: together({ id: setting('CLIENT_ID', z.string()), secret: setting('CLIENT_SECRET', z.string()), scope: setting('CLIENT_SCOPE', z.string()) }),
};

describe('the settings table', () => {
  it('reads each variable with its schema, group members as optional', () => {
    const schema = z.object(environmentShape(table));
    expect(Object.keys(schema.shape)).toEqual(['NAME', 'PER_DAY', 'CLIENT_ID', 'CLIENT_SECRET', 'CLIENT_SCOPE']);
    expect(schema.parse({})).toEqual({ NAME: 'anon', PER_DAY: 5 });
  });

  it('gives the value in the shape of the table; a group is all its members or undefined', () => {
    expect(resolve(table, { NAME: 'a', PER_DAY: 2 })).toEqual({ name: 'a', limits: { perDay: 2 }, client: undefined });
    expect(resolve(table, { NAME: 'a', PER_DAY: 2, CLIENT_ID: 'i', CLIENT_SECRET: 's', CLIENT_SCOPE: 'x' }).client).toEqual({ id: 'i', secret: 's', scope: 'x' });
  });

  it('names the first missing member of a group set in part, and what goes together', () => {
    expect(incompleteGroups(table, {})).toEqual([]);
    expect(incompleteGroups(table, { CLIENT_ID: 'i', CLIENT_SECRET: 's', CLIENT_SCOPE: 'x' })).toEqual([]);
    expect(incompleteGroups(table, { CLIENT_SECRET: 's' })).toEqual([{ missing: 'CLIENT_ID', message: 'CLIENT_ID, CLIENT_SECRET and CLIENT_SCOPE must be set together' }]);
  });

  it('refuses a variable declared twice', () => {
    expect(() => environmentShape({ a: setting('SAME', z.string()), b: { c: setting('SAME', z.string()) } })).toThrow(/SAME is declared twice in the settings table \(again at b\.c\)/);
  });
});
