// One-time login links. A first-party client (the bot), authenticating with its own client
// credentials on a back channel, asks for a link that signs a given Discord user in; the user
// opens it in a browser. A link is single use, expires after LOGIN_LINK_TTL, is stored only as a
// hash, and can only lead to a page of this service (no open redirect). It signs in exactly its
// user: an authorization-server session the browser held for anyone else ends, so what the link
// leads to (a device approval) is approved as that user. Only a GET consumes it: a HEAD (link
// previews, scanners) changes nothing.
import formbody from '@fastify/formbody';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import { z } from 'zod';
import type { Config } from '../config/config.js';
import { consumeLoginLink, insertLoginLink } from '../db/repositories/login-links.js';
import { findClient } from '../db/repositories/oauth-clients.js';
import { claimedClientId } from '../domain/audit.js';
import { signInUser } from './sign-in.js';
import type { Schema } from '../db/tables.js';
import { constantTimeEqual, randomSecret, sha256 } from '../security/crypto.js';
import type { BrowserSession } from './browser-session.js';
import { isUtf8ContentType } from './media-types.js';
import { frameFor } from './pages/frame.js';
import { errorPage } from './pages/pages.js';
import { OAUTH_ROUTES } from './provider.js';

export const LOGIN_LINKS_PATH = '/auth/login-links';

// Where a link may lead: the device verification page (with its user code) or the account pages.
const RETURN_TO = z
  .string()
  .max(512)
  // It becomes a Location header: printable ASCII only (percent-encode anything else).
  .regex(/^[\x21-\x7e]+$/, { error: 'must be printable ASCII (percent-encode other characters)', abort: true })
  .refine((value) => {
    if (!value.startsWith('/') || value.startsWith('//') || value.includes('\\')) return false;
    const url = new URL(value, 'http://switchboard.invalid');
    return url.origin === 'http://switchboard.invalid' && (url.pathname === OAUTH_ROUTES.code_verification || url.pathname.startsWith('/account/'));
  }, `must be a path of this service: ${OAUTH_ROUTES.code_verification}?user_code=... or /account/...`);

const MintRequest = z.strictObject({
  user_id: z.string().regex(/^\d{17,20}$/, 'must be a Discord user id (17 to 20 digits)'),
  return_to: RETURN_TO.default('/account/apps'),
});

export interface LoginLinkDependencies {
  config: Config;
  db: Kysely<Schema>;
  session: BrowserSession;
}

export async function loginLinkRoutes(app: FastifyInstance, { config, db, session }: LoginLinkDependencies) {
  await app.register(formbody, { bodyLimit: 4096 });

  const oauthError = (reply: FastifyReply, status: number, error: string, description: string) => {
    if (status === 401) reply.header('www-authenticate', 'Basic realm="switchboard"');
    return reply.code(status).header('cache-control', 'no-store').send({ error, error_description: description });
  };

  // Bodies are read as UTF-8 (JSON and forms alike): one declared in another charset is refused
  // rather than misread.
  app.addHook('onRequest', async (request, reply) => {
    if (!isUtf8ContentType(request.headers['content-type'])) {
      return oauthError(reply, 415, 'invalid_request', 'send the body in UTF-8 (charset=utf-8 or no charset)');
    }
    return undefined;
  });

  app.post(LOGIN_LINKS_PATH, async (request, reply) => {
    const client = await authenticateClient(request);
    if (!client) return oauthError(reply, 401, 'invalid_client', 'client authentication failed (use HTTP Basic with the client id and secret)');
    if (!client.firstParty) return oauthError(reply, 403, 'unauthorized_client', 'only first-party clients may mint login links');
    const parsed = MintRequest.safeParse(request.body ?? {});
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return oauthError(reply, 400, 'invalid_request', `${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'invalid'}`);
    }
    const token = randomSecret(32);
    const now = Date.now();
    await insertLoginLink(db, {
      tokenHash: sha256(token),
      userId: parsed.data.user_id,
      clientId: client.id,
      returnTo: parsed.data.return_to,
      createdAt: now,
      expiresAt: now + config.ttl.loginLink * 1000,
    });
    return reply
      .code(201)
      .header('cache-control', 'no-store')
      .send({ url: `${config.publicUrl}${LOGIN_LINKS_PATH}/${token}`, expires_in: config.ttl.loginLink });
  });

  // Fastify would answer HEAD with this GET handler, consuming the link: HEAD has its own route.
  app.get<{ Params: { token: string } }>(`${LOGIN_LINKS_PATH}/:token`, { exposeHeadRoute: false }, async (request, reply) => {
    // Links must not leak through the Referer of the page they lead to, nor a sign-in be cached.
    reply.header('referrer-policy', 'no-referrer').header('cache-control', 'no-store');
    const link = /^[A-Za-z0-9_-]{20,100}$/.test(request.params.token) ? await consumeLoginLink(db, sha256(request.params.token), Date.now()) : undefined;
    if (!link) {
      return reply.code(410).type('text/html; charset=utf-8').send(errorPage('Link expired', 'This sign-in link was already used or has expired. Ask the app for a new one.', undefined, frameFor(config.instanceName, session.signedInUser(request))));
    }
    await signInUser(db, session, request, reply, { id: link.user_id, username: null }, 'login-link');
    return reply.redirect(link.return_to, 303);
  });

  // A HEAD reads nothing and changes nothing: the link stays usable, and says nothing about itself.
  app.head(`${LOGIN_LINKS_PATH}/:token`, async (_request, reply) =>
    reply.code(200).header('referrer-policy', 'no-referrer').header('cache-control', 'no-store').type('text/html; charset=utf-8').send(),
  );

  async function authenticateClient(request: FastifyRequest) {
    const header = request.headers.authorization;
    if (!header?.startsWith('Basic ')) return undefined;
    const decoded = Buffer.from(header.slice(6), 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) return undefined;
    const id = safeDecode(decoded.slice(0, colon));
    const secret = safeDecode(decoded.slice(colon + 1));
    if (!id || !secret) return undefined;
    const client = await findClient(db, id);
    if (!client?.secretHash || !constantTimeEqual(client.secretHash, sha256(secret))) {
      const reason = client ? (client.secretHash ? 'invalid secret provided' : 'public client') : 'client not found';
      await request.server.audit.record({ kind: 'client-auth-failed', clientId: client?.id ?? claimedClientId(id), ip: request.ip, details: { endpoint: 'login-links', reason } });
      return undefined;
    }
    return client;
  }
}

function safeDecode(value: string): string | undefined {
  try {
    return decodeURIComponent(value.replace(/\+/g, ' '));
  } catch {
    return undefined;
  }
}
