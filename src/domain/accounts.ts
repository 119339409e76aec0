// Several Discord accounts for one system (issue 29). The owning account (`associatedUserId`) makes
// one-time codes; another account redeems one after its own sign-in and from then on is the same
// system: `{user}` as its id and `@me` from its tokens resolve to that system. Tokens stay per
// account. The rules here are pure; db/repositories/accounts.ts stores and applies them.
import { z } from 'zod';
import { IsoDateTime } from './values.js';

/** No 0/O, 1/I/L: a code is read off one screen and typed on another. */
export const ACCOUNT_CODE_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
/** 10 characters of 31: about 49 bits, against a code that lives 10 minutes and is rate limited. */
export const ACCOUNT_CODE_LENGTH = 10;
export const ACCOUNT_CODE_TTL_MS = 10 * 60 * 1000;
/** The purpose of the keyed hash a code is stored under (StorageCrypto.lookupHash). */
export const ACCOUNT_CODE_HASH_PURPOSE = 'account-code';

/**
 * A new code from `randomBytes` (the caller's source of randomness: the domain does no I/O). Bytes
 * at or past the largest multiple of the alphabet's size are skipped, so every character is
 * equally likely.
 */
export function newAccountCode(randomBytes: (count: number) => Uint8Array): string {
  const limit = 256 - (256 % ACCOUNT_CODE_ALPHABET.length);
  let code = '';
  while (code.length < ACCOUNT_CODE_LENGTH) {
    for (const byte of randomBytes(ACCOUNT_CODE_LENGTH * 2)) {
      if (byte < limit && code.length < ACCOUNT_CODE_LENGTH) code += ACCOUNT_CODE_ALPHABET[byte % ACCOUNT_CODE_ALPHABET.length];
    }
  }
  return code;
}

/**
 * A code as typed (any case, spaces or dashes between groups) in its stored form, or undefined when
 * it cannot be a code at all (then no lookup is made).
 */
export function normaliseAccountCode(typed: string): string | undefined {
  const code = typed.replace(/[\s-]/g, '').toUpperCase();
  if (code.length !== ACCOUNT_CODE_LENGTH) return undefined;
  for (const character of code) if (!ACCOUNT_CODE_ALPHABET.includes(character)) return undefined;
  return code;
}

export const AccountCode = z
  .strictObject({
    code: z.string().describe(`${ACCOUNT_CODE_LENGTH} characters from \`${ACCOUNT_CODE_ALPHABET}\`; redeemed once, by another account.`),
    expiresAt: IsoDateTime.describe('Ten minutes after it was made.'),
  })
  .meta({ id: 'AccountCode' });
export type AccountCode = z.infer<typeof AccountCode>;

export const RedeemAccountCodeBody = z.strictObject({
  code: z.string().min(1, 'must not be empty').max(64, 'must be at most 64 characters').describe('The code the owning account was given (case, spaces and dashes do not matter).'),
  discardOwnSystem: z
    .boolean()
    .optional()
    .describe('Delete this account’s own system, with everything in it, in the same transaction. Needed when it holds alters, tags or switches (else 409 `account-has-system`).'),
});
export type RedeemAccountCodeInput = z.infer<typeof RedeemAccountCodeBody>;

export const SystemAccounts = z
  .strictObject({
    associatedUserId: z.string().describe('The owning account: it makes codes and removes other accounts.'),
    subAccounts: z.array(z.string()).describe('The other accounts of the system, by Discord id.'),
  })
  .meta({ id: 'SystemAccounts' });
export type SystemAccounts = z.infer<typeof SystemAccounts>;

/** What a system holds that joining another would lose: empty is what every first sign-in makes. */
export interface SystemContents {
  alters: number;
  tags: number;
  switches: number;
  /** Other accounts that joined it: they would be left without a system. */
  subAccounts: number;
}

export type JoinDecision =
  | { join: true; discard: 'empty' | 'contents' | 'none' }
  | { join: false; reason: 'already-member' | 'member-elsewhere' | 'has-accounts' | 'has-contents' };

/**
 * Whether an account may join a system, given what it belongs to now: `own` is the system it owns
 * (and what it holds), `memberOf` the system it has joined as another account (at most one of the
 * two is set; a removed account's next system is a new, empty one it owns).
 */
export function decideJoin(
  joining: { own: SystemContents | null; memberOf: number | null; ownId: number | null },
  target: number,
  discardOwnSystem: boolean,
): JoinDecision {
  if (joining.ownId === target || joining.memberOf === target) return { join: false, reason: 'already-member' };
  if (joining.memberOf !== null) return { join: false, reason: 'member-elsewhere' };
  if (joining.own === null) return { join: true, discard: 'none' };
  if (joining.own.subAccounts > 0) return { join: false, reason: 'has-accounts' };
  const empty = joining.own.alters === 0 && joining.own.tags === 0 && joining.own.switches === 0;
  if (empty) return { join: true, discard: 'empty' };
  return discardOwnSystem ? { join: true, discard: 'contents' } : { join: false, reason: 'has-contents' };
}

/** The sentence each refusal of a join gives (409 `account-has-system`). */
export const JOIN_REFUSALS: Record<Extract<JoinDecision, { join: false }>['reason'], string> = {
  'already-member': 'this account is already an account of that system',
  'member-elsewhere': 'this account belongs to another system; remove it from that system first',
  'has-accounts': 'this account owns a system that other accounts have joined; remove them first',
  'has-contents': 'this account has its own system with alters, tags or switches; send discardOwnSystem: true to delete it and join',
};

/**
 * Who may remove an account from a system: the owning account removes any other; any other account
 * removes itself. The owner is never removed (it would leave the system without one).
 */
export function mayRemoveAccount(system: { ownerId: string }, actorId: string, accountId: string): 'ok' | 'owner' | 'not-allowed' {
  if (accountId === system.ownerId) return 'owner';
  if (actorId === system.ownerId || actorId === accountId) return 'ok';
  return 'not-allowed';
}
