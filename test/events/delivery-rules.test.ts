// The pure rules of event delivery, table-tested: which addresses a delivery may reach, the retry
// schedule, the Standard Webhooks signature (against the specification's published example), which
// URLs may be registered, and what a receiving client sees of an event.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { endpointUrlProblem, eventFor, type StoredEvent } from '../../src/domain/events.js';
import { isPrivateAddress, resolveDeliveryAddress } from '../../src/events/address-guard.js';
import { afterFailure, retryDelay } from '../../src/events/backoff.js';
import { newEndpointSecret, signatureOf, webhookHeaders } from '../../src/events/signature.js';
import { verifySignature } from './receiver.js';
import { anAlter } from '../support/fixtures.js';

describe('the address guard', () => {
  it.each([
    ['8.8.8.8', false],
    ['1.1.1.1', false],
    ['172.32.0.1', false],
    ['2606:4700:4700::1111', false],
    ['127.0.0.1', true],
    ['127.255.255.254', true],
    ['0.0.0.0', true],
    ['10.0.0.1', true],
    ['100.64.0.1', true],
    ['169.254.169.254', true],
    ['172.16.0.1', true],
    ['172.31.255.255', true],
    ['192.168.1.1', true],
    ['198.18.0.1', true],
    ['224.0.0.1', true],
    ['255.255.255.255', true],
    ['::', true],
    ['::1', true],
    ['::ffff:127.0.0.1', true],
    ['::ffff:8.8.8.8', true],
    ['::127.0.0.1', true],
    ['64:ff9b::7f00:1', true],
    ['2002:7f00:1::', true],
    ['2001:0:4136:e378::1', true],
    ['fc00::1', true],
    ['fd12:3456::1', true],
    ['fe80::1', true],
    ['ff02::1', true],
    ['not an address', true],
  ])('%s refused: %s', (address, refused) => {
    expect(isPrivateAddress(address)).toBe(refused);
  });
});

describe('what the delivery log says of a refused host', () => {
  // The log is the app's to read: naming the address would tell it how the service resolves any name.
  it.each(['localhost', '127.0.0.1', '[::1]', '10.0.0.7'])('%s: "refused: not a public address", without the address', async (host) => {
    const error = await resolveDeliveryAddress(host, false).then(
      () => undefined,
      (caught: unknown) => caught as Error,
    );
    expect(error?.message).toBe('refused: not a public address');
  });

  it('says a name does not resolve without the resolver’s text', async () => {
    const error = await resolveDeliveryAddress('nothing-here.invalid', false).then(
      () => undefined,
      (caught: unknown) => caught as Error,
    );
    expect(error?.message).toBe('refused: the host name does not resolve');
  });
});

describe('the retry schedule', () => {
  const policy = { baseMs: 1000, maxMs: 60_000, giveUpAfterMs: 86_400_000 };
  it.each([
    [1, 0, 500],
    [1, 1, 1000],
    [2, 0, 1000],
    [3, 1, 4000],
    [7, 1, 60_000],
    [40, 0, 30_000],
    [1000, 1, 60_000],
  ])('after failure %i with jitter %f waits %i ms', (attempt, jitter, wait) => {
    expect(retryDelay(attempt, policy, () => jitter)).toBe(wait);
  });

  it('always waits between half and the whole step, and never past the deadline', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 200 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        fc.integer({ min: 0, max: 90_000_000 }),
        (attempt, jitter, elapsed) => {
          const step = Math.min(policy.maxMs, policy.baseMs * 2 ** Math.min(attempt - 1, 40));
          const wait = retryDelay(attempt, policy, () => jitter);
          expect(wait).toBeGreaterThanOrEqual(step / 2 - 1);
          expect(wait).toBeLessThanOrEqual(step);
          const next = afterFailure(attempt, 0, elapsed, policy, () => jitter);
          if (elapsed >= policy.giveUpAfterMs) expect(next).toEqual({ status: 'failed' });
          else if (next.status === 'pending') expect(next.at).toBeLessThanOrEqual(policy.giveUpAfterMs);
          else throw new Error('gave up before the deadline');
        },
      ),
    );
  });
});

describe('signatures', () => {
  it('match the Standard Webhooks specification’s example', () => {
    expect(signatureOf('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232314}')).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });

  it('verify with every secret of a rotation, and not with another', () => {
    const [current, previous, stranger] = [newEndpointSecret(), newEndpointSecret(), newEndpointSecret()];
    expect(current).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const body = '{"type":"alter.created"}';
    const headers = webhookHeaders([current, previous], 'msg_1', Math.floor(Date.now() / 1000), body);
    expect(verifySignature(current, { headers, body })).toBe(true);
    expect(verifySignature(previous, { headers, body })).toBe(true);
    expect(verifySignature(stranger, { headers, body })).toBe(false);
    expect(verifySignature(current, { headers: { ...headers, 'webhook-id': 'msg_2' }, body })).toBe(false);
  });
});

describe('registrable endpoint URLs', () => {
  it.each([
    ['https://hooks.example/switchboard', false, undefined],
    ['http://hooks.example/switchboard', false, 'url: must be an https:// URL'],
    ['http://127.0.0.1:8080/x', true, undefined],
    ['https://user:secret@hooks.example/', false, 'url: must not contain a user name or password'],
    ['https://hooks.example/#frag', false, 'url: must not contain a #fragment'],
  ])('%s (private allowed: %s)', (url, allowPrivate, problem) => {
    expect(endpointUrlProblem(url, allowPrivate)).toBe(problem);
  });
});

describe('what a receiving client sees', () => {
  const alter = anAlter({ id: 7, systemId: 3, username: 'kes', displayName: 'Kestrel', description: 'private', fields: { 'app-a': 'a-value', 'app-b': 'b-value' } });
  const event: StoredEvent = { id: 11, systemId: 3, userId: '200000000000000001', sequence: 4, actorClientId: 'app-b', actorAccountId: '200000000000000002', actorClientName: 'App B', createdAt: 1_700_000_000_000, snapshot: { type: 'alter.updated', alter } };

  it.each([
    ['app-a', ['alters:read'], { fields: { 'app-a': 'a-value' } }, false],
    ['app-b', ['alters:read', 'system:read'], { fields: { 'app-b': 'b-value' } }, true],
    ['app-c', ['alters:read'], { fields: {} }, false],
  ])('%s with %j', (clientId, scopes, alterPart, self) => {
    const envelope = eventFor(event, { clientId, scopes: new Set(scopes) });
    expect(envelope).toMatchObject({ type: 'alter.updated', timestamp: '2023-11-14T22:13:20.000Z', data: { eventId: '11', sequence: 4, actor: { clientId: 'app-b', clientName: 'App B', self, accountId: '200000000000000002' }, alter: { description: 'private', ...alterPart } } });
  });

  it.each([[['system:read']], [['messages:read', 'alters:write']], [[]]])('nothing without alters:read (%j)', (scopes) => {
    expect(eventFor(event, { clientId: 'app-a', scopes: new Set(scopes) })).toBeUndefined();
  });
});
