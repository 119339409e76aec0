// The fuzz table's rows for custom profile fields (issue 30) and a system's accounts (issue 29):
// the endpoints, their valid and plausible bodies, and the ids they aim at. Only the delete row
// names the doomed fields, so the field edits aim at stays; no generated request can redeem a real
// code (codes are random and never read back), so no account joins or leaves a fixture's system.
import fc from 'fast-check';
import { z } from 'zod';
import { ACCOUNT_CODE_ALPHABET, ACCOUNT_CODE_LENGTH, AccountCode, SystemAccounts } from '../../../src/domain/accounts.js';
import { PROFILE_FIELD_KIND_NAMES, PROFILE_FIELD_PRIVACY, ProfileField } from '../../../src/domain/profile-fields.js';
import { shortText, validText } from './bodies.js';
import type { V1Endpoint } from './endpoints.js';
import { type Fixtures, OTHER, OWNER, STRANGER, VICTIM } from './fixtures.js';
import { edgeString, jsonBody, urlComponent, w, withWrongFields } from './generators.js';

/** The body fields of a profile field: editable, then read-only ones an answer has. */
export const PROFILE_FIELD_BODY_FIELDS = ['name', 'kind', 'privacy', 'fieldId', 'systemId', 'position', 'created'];

/** Field bodies every key of which is valid: these mostly succeed (or meet a duplicate name, or the cap). */
export function validProfileField(create: boolean): fc.Arbitrary<Record<string, unknown>> {
  return fc.record(
    {
      name: fc.oneof(w(3, fc.stringMatching(/^[a-z][a-z0-9 ]{0,11}$/)), w(1, validText(100))),
      kind: fc.constantFrom(...PROFILE_FIELD_KIND_NAMES),
      privacy: fc.constantFrom(...PROFILE_FIELD_PRIVACY),
    },
    { requiredKeys: create ? ['name'] : [] },
  );
}

/** Field bodies near the valid ones: names that collide or do not fit, kinds and privacy that are none. */
export function plausibleProfileField(create: boolean): fc.Arbitrary<Record<string, unknown>> {
  return fc.record(
    {
      name: fc.oneof(w(4, shortText), w(1, fc.constantFrom('steady field', 'STEADY FIELD', '  ', '', ' padded ', 'n'.repeat(100), 'n'.repeat(101))), w(1, edgeString)),
      kind: fc.oneof(fc.constantFrom(...PROFILE_FIELD_KIND_NAMES), fc.constantFrom('Text', 'number', '', null, 1), edgeString),
      privacy: fc.oneof(fc.constantFrom(...PROFILE_FIELD_PRIVACY), fc.constantFrom('public', 'private', 'visible', '', null, 0), edgeString),
      fieldId: fc.nat(),
      position: fc.integer({ min: -1, max: 200 }),
    },
    { requiredKeys: create ? ['name'] : [] },
  );
}

/** `fieldIds` bodies: the owner's known fields in some order (valid only while no other exists), others', repeats and junk. */
function orderBody(fixtures: Fixtures): fc.Arbitrary<Record<string, unknown>> {
  const own = [fixtures.ownerFieldId, ...fixtures.doomedFieldIds];
  const anyId = fc.oneof(w(6, fc.constantFrom(...own)), w(1, fc.constantFrom(fixtures.otherShownFieldId, fixtures.otherHiddenFieldId, 999_999, 0, -1)), w(1, fc.constantFrom<unknown>('1', 1.5, null, 2 ** 53 + 2)));
  return fc.record(
    {
      fieldIds: fc.oneof(
        w(3, fc.shuffledSubarray(own, { minLength: own.length, maxLength: own.length })),
        w(2, fc.array(anyId, { maxLength: 8 })),
        w(1, fc.array(fc.constantFrom(...own), { minLength: 101, maxLength: 102 })),
        w(1, edgeString),
      ),
    },
    { requiredKeys: [] },
  );
}

export function profileFieldEndpoints(fixtures: Fixtures): V1Endpoint[] {
  const user = fc.oneof(w(6, fc.constant('@me')), w(4, urlComponent([OWNER, OTHER, STRANGER])));
  const own = fc.constantFrom('@me', '@me', OWNER);
  const at = (suffix: string) => (u: string) => `/v1/users/${u}${suffix}`;
  const known = [fixtures.ownerFieldId, fixtures.otherShownFieldId, fixtures.otherHiddenFieldId, 999_999, 0].map(String);
  const fieldId = urlComponent([...known, '9007199254740993', '-1', '1.5']);
  // Delete paths name only the doomed fields, other systems' and ones that are none.
  const doomed = urlComponent([...fixtures.doomedFieldIds, fixtures.otherShownFieldId, 999_999, 0].map(String));
  const cleanBody = (create: boolean) =>
    fc.oneof(
      w(3, validProfileField(create).map((body) => JSON.stringify(body))),
      w(1, plausibleProfileField(create).map((body) => JSON.stringify(body))),
      w(2, withWrongFields(PROFILE_FIELD_BODY_FIELDS, validProfileField(create))),
    );
  const base = (create: boolean) => fc.oneof(validProfileField(create), plausibleProfileField(create));
  const emptyBody = fc.oneof(w(4, fc.constant('{}')), w(1, withWrongFields(['confirm', 'fieldId'], fc.constant({}))));
  const list = z.array(ProfileField);
  return [
    {
      name: 'createProfileField', method: 'POST', success: 201, schema: ProfileField,
      path: user.map(at('/system/create-profile-field')), query: undefined, body: jsonBody(PROFILE_FIELD_BODY_FIELDS, base(true)),
      clean: { path: own.map(at('/system/create-profile-field')), body: cleanBody(true) },
    },
    {
      name: 'listProfileFields', method: 'GET', success: 200, schema: list,
      path: user.map(at('/system/list-profile-fields')), query: { max: ['1', '100'] }, body: undefined,
      clean: { path: fc.constantFrom('@me', OWNER, OTHER).map(at('/system/list-profile-fields')) },
    },
    {
      name: 'readProfileField', method: 'GET', success: 200, schema: z.strictObject({ isSelf: z.boolean(), data: ProfileField }),
      path: fc.tuple(user, fieldId).map(([u, f]) => `/v1/users/${u}/profile-fields/${f}`), query: undefined, body: undefined,
      clean: {
        path: fc
          .constantFrom(`@me/profile-fields/${fixtures.ownerFieldId}`, `${OTHER}/profile-fields/${fixtures.otherShownFieldId}`, `${OTHER}/profile-fields/${fixtures.otherHiddenFieldId}`, `${OWNER}/profile-fields/${fixtures.ownerFieldId}`)
          .map((rest) => `/v1/users/${rest}`),
      },
    },
    {
      name: 'editProfileField', method: 'POST', success: 200, schema: ProfileField,
      path: fc.tuple(user, fieldId).map(([u, f]) => `/v1/users/${u}/profile-fields/${f}/edit`), query: undefined, body: jsonBody(PROFILE_FIELD_BODY_FIELDS, base(false)),
      clean: { path: own.map((u) => `/v1/users/${u}/profile-fields/${fixtures.ownerFieldId}/edit`), body: cleanBody(false) },
    },
    {
      name: 'orderProfileFields', method: 'POST', success: 200, schema: list,
      path: user.map(at('/system/order-profile-fields')), query: undefined, body: jsonBody(['fieldIds'], orderBody(fixtures)),
      clean: { path: own.map(at('/system/order-profile-fields')), body: fc.oneof(w(3, orderBody(fixtures).map((body) => JSON.stringify(body))), w(1, withWrongFields(['fieldIds'], orderBody(fixtures)))) },
    },
    {
      name: 'deleteProfileField', method: 'POST', success: 200, schema: z.strictObject({ deleted: z.literal(true) }),
      path: fc.tuple(user, doomed).map(([u, f]) => `/v1/users/${u}/profile-fields/${f}/delete`), query: undefined, body: jsonBody(['confirm'], fc.constant({})),
      clean: { path: fc.tuple(own, fc.constantFrom(...fixtures.doomedFieldIds, 999_999)).map(([u, f]) => `/v1/users/${u}/profile-fields/${f}/delete`), body: emptyBody },
    },
  ];
}

export function accountEndpoints(): V1Endpoint[] {
  const user = fc.oneof(w(6, fc.constant('@me')), w(4, urlComponent([OWNER, OTHER, STRANGER])));
  const own = fc.constantFrom('@me', '@me', OWNER);
  const at = (suffix: string) => (u: string) => `/v1/users/${u}${suffix}`;
  const emptyBody = fc.oneof(w(4, fc.constant('{}')), w(1, withWrongFields(['code', 'account'], fc.constant({}))));
  // Codes of the right shape that were never made (case, spaces and dashes do not matter), and junk.
  // One of 31^10 shapes matching a code the accountCode row made is as good as impossible.
  const shaped = fc
    .tuple(fc.string({ unit: fc.constantFrom(...ACCOUNT_CODE_ALPHABET), minLength: ACCOUNT_CODE_LENGTH, maxLength: ACCOUNT_CODE_LENGTH }), fc.constantFrom('', '-', ' '), fc.boolean())
    .map(([text, separator, lower]) => {
      const written = `${text.slice(0, 5)}${separator}${text.slice(5)}`;
      return lower ? written.toLowerCase() : written;
    });
  const code = fc.oneof(
    w(3, shaped),
    w(1, fc.constantFrom('', ' ', 'abcd efgh', '----', 'x'.repeat(64), 'x'.repeat(65), '\u0000')),
    w(1, edgeString),
  );
  const redeemBody = fc.record({ code, discardOwnSystem: fc.oneof(fc.boolean(), fc.constantFrom<unknown>('true', 1, null)) }, { requiredKeys: ['code'] });
  // Accounts to remove: none is another account of a fixture's system, so each is refused.
  const account = urlComponent([OWNER, OTHER, VICTIM, STRANGER, '1', '99999999999999999999', '018446744073709551']);
  const accounts = z.strictObject({ data: SystemAccounts });
  return [
    {
      name: 'accountCode', method: 'POST', success: 201, schema: z.strictObject({ data: AccountCode }),
      path: user.map(at('/system/accounts/code')), query: undefined, body: jsonBody(['code'], fc.constant({})),
      clean: { path: own.map(at('/system/accounts/code')), body: emptyBody },
    },
    {
      name: 'redeemAccountCode', method: 'POST', success: 200, schema: accounts,
      path: user.map(at('/system/accounts/redeem')), query: undefined, body: jsonBody(['code', 'discardOwnSystem'], redeemBody),
      clean: { path: fc.constant('/v1/users/@me/system/accounts/redeem'), body: fc.oneof(w(3, redeemBody.map((body) => JSON.stringify(body))), w(1, withWrongFields(['code', 'discardOwnSystem'], redeemBody))) },
    },
    {
      name: 'removeAccount', method: 'POST', success: 200, schema: accounts,
      path: fc.tuple(user, account).map(([u, a]) => `/v1/users/${u}/system/accounts/${a}/remove`), query: undefined, body: jsonBody(['confirm'], fc.constant({})),
      clean: { path: fc.tuple(own, fc.constantFrom(OWNER, OTHER, VICTIM)).map(([u, a]) => `/v1/users/${u}/system/accounts/${a}/remove`), body: emptyBody },
    },
  ];
}
