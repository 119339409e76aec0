// Background deliveries: retried while the service is away, final when it refuses, settled once.
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../src/bot/api-client.js';
import { createDeliveryQueue } from '../../../src/bot/proxy/records.js';
import { quietLog } from '../../support/bot.js';

const down = () => new ApiError('unavailable', 0, 'unavailable', 'down');

describe('delivery queue', () => {
  it('retries while the service is unreachable and settles once when it stores', async () => {
    const queue = createDeliveryQueue(quietLog);
    let attempts = 0;
    const settled: Array<[boolean, unknown]> = [];
    queue.push({
      what: 'record',
      send: async () => {
        attempts += 1;
        if (attempts < 3) throw down();
        return { ok: true };
      },
      settled: (stored, result) => settled.push([stored, result]),
    });
    expect(await queue.drain(10_000)).toBe(true);
    expect(attempts).toBe(3);
    expect(settled).toEqual([[true, { ok: true }]]);
  });

  it('does not retry a refusal, unless asked to for a while', async () => {
    const queue = createDeliveryQueue(quietLog);
    let plain = 0;
    let asked = 0;
    const outcomes: boolean[] = [];
    queue.push({ what: 'refused', send: async () => { plain += 1; throw new ApiError('problem', 409, 'duplicate', 'no'); }, settled: (stored) => outcomes.push(stored) });
    queue.push({
      what: 'waits for another',
      send: async () => {
        asked += 1;
        if (asked < 2) throw new ApiError('problem', 404, 'unknown-message', 'not yet');
        return {};
      },
      retryAlso: (error) => error instanceof ApiError && error.type === 'unknown-message',
      settled: (stored) => outcomes.push(stored),
    });
    expect(await queue.drain(10_000)).toBe(true);
    expect(plain).toBe(1);
    expect(asked).toBe(2);
    expect(outcomes.sort()).toEqual([false, true]);
  });
});
