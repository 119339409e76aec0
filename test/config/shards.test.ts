// SHARD_COUNT and SHARD_IDS: the pure parser (a table), and the settings as loadConfig reads them.
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/config.js';
import { planShards } from '../../src/config/shards.js';

describe('planShards', () => {
  const cases: Array<[count: string | undefined, ids: string | undefined, expected: ReturnType<typeof planShards>]> = [
    [undefined, undefined, { count: 1, ids: undefined }],
    ['4', undefined, { count: 4, ids: undefined }],
    ['auto', undefined, { count: 'auto', ids: undefined }],
    ['4', '2,3', { count: 4, ids: [2, 3] }],
    ['4', '0-3', { count: 4, ids: [0, 1, 2, 3] }],
    ['8', ' 6 , 0-1 ', { count: 8, ids: [0, 1, 6] }],
    ['8', '3 - 4', { count: 8, ids: [3, 4] }],
    ['1', '0', { count: 1, ids: [0] }],
    ['0', undefined, { setting: 'SHARD_COUNT', error: 'expected from 1 to 100000 shards' }],
    ['100001', undefined, { setting: 'SHARD_COUNT', error: 'expected from 1 to 100000 shards' }],
    ['four', undefined, { setting: 'SHARD_COUNT', error: 'expected auto or a whole number of shards' }],
    ['2.5', undefined, { setting: 'SHARD_COUNT', error: 'expected auto or a whole number of shards' }],
    ['4', '4', { setting: 'SHARD_IDS', error: 'shard 4 does not exist: SHARD_COUNT=4 has shards 0 to 3' }],
    ['4', '0-4', { setting: 'SHARD_IDS', error: 'shard 4 does not exist: SHARD_COUNT=4 has shards 0 to 3' }],
    ['4', '3-1', { setting: 'SHARD_IDS', error: 'the range 3-1 runs backwards' }],
    ['4', '1,0-2', { setting: 'SHARD_IDS', error: 'shard 1 is listed twice' }],
    ['4', '1,,2', { setting: 'SHARD_IDS', error: 'expected shard ids and ranges such as 2,3 or 0-3 (not "")' }],
    ['4', '-1', { setting: 'SHARD_IDS', error: 'expected shard ids and ranges such as 2,3 or 0-3 (not "-1")' }],
    ['auto', '0', { setting: 'SHARD_IDS', error: 'needs SHARD_COUNT set to a number: every process must agree on the total' }],
  ];
  it.each(cases)('SHARD_COUNT=%s SHARD_IDS=%s', (count, ids, expected) => {
    expect(planShards(count, ids)).toEqual(expected);
  });
});

describe('the shard settings', () => {
  it('hold every shard by default, and the listed ones with SHARD_IDS', () => {
    expect(loadConfig({}).bot.shards).toEqual({ count: 1, ids: undefined });
    expect(loadConfig({ SHARD_COUNT: '4', SHARD_IDS: '2,3' }).bot.shards).toEqual({ count: 4, ids: [2, 3] });
    expect(loadConfig({ SHARD_COUNT: '4', SHARD_IDS: '' }).bot.shards).toEqual({ count: 4, ids: undefined });
  });

  it('refuse bad values, naming the variable', () => {
    const message = (env: Record<string, string>): string => {
      try {
        loadConfig(env);
      } catch (error) {
        if (error instanceof ConfigError) return error.message;
        throw error;
      }
      return 'no error';
    };
    expect(message({ SHARD_COUNT: 'many' })).toMatch(/SHARD_COUNT: expected auto or a whole number of shards/);
    expect(message({ SHARD_COUNT: '4', SHARD_IDS: '5' })).toMatch(/SHARD_IDS: shard 5 does not exist/);
    expect(message({ SHARD_IDS: '1' })).toMatch(/SHARD_IDS: shard 1 does not exist: SHARD_COUNT=1/);
  });
});
