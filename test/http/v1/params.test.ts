// {user}: one string pattern since the OpenAPI document had to stop showing a union; it must accept
// exactly what the union of `@me` and a Discord user id accepted, no more and no less.
import fc from 'fast-check';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { UserId } from '../../../src/domain/values.js';
import { UserRef } from '../../../src/http/v1/params.js';

const TheUnion = z.union([z.literal('@me'), UserId]);

describe('UserRef', () => {
  it.each([
    ['@me', true],
    ['123456789012345678', true],
    ['10000000000000000', true],
    ['99999999999999999999', true],
    ['@ME', false],
    ['me', false],
    [' @me', false],
    ['@me\n', false],
    ['1234567890123456', false],
    ['123456789012345678901', false],
    ['012345678901234567', false],
    ['12345678901234567a', false],
    ['', false],
  ])('%j → %s', (value, accepted) => {
    expect(UserRef.safeParse(value).success).toBe(accepted);
    expect(TheUnion.safeParse(value).success).toBe(accepted);
  });

  it('agrees with the union on any string', () => {
    const candidates = fc.oneof(fc.string(), fc.stringMatching(/^@?[0-9me]{0,22}\n?$/), fc.bigInt({ min: 0n, max: 10n ** 21n }).map(String));
    fc.assert(fc.property(candidates, (value) => UserRef.safeParse(value).success === TheUnion.safeParse(value).success), { numRuns: 2000 });
  });

  it('names the parameter in words when it is wrong', () => {
    expect(UserRef.safeParse('someone').error?.issues[0]?.message).toBe('must be @me or a Discord user id (17 to 20 digits)');
  });
});
