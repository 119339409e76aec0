// The OAuth 2.1 / OpenID Connect authorization server: oidc-provider configured for this
// service. What is enabled and why:
// - authorization_code with PKCE S256 for every client (plain is not implemented by the library),
//   refresh_token with rotation and reuse detection, device_code (the bot), client_credentials.
// - no implicit or hybrid flows, no dynamic registration, no dev interactions, no PAR or DPoP
//   (not needed by our clients yet), no resource indicators: this service is the only resource
//   server, and without them one opaque access token carries every granted scope and also works
//   at userinfo.
// - opaque access tokens: revocation takes effect at once and introspection works.
import type { Kysely } from 'kysely';
import Provider, { errors, interactionPolicy, type Configuration, type KoaContextWithOIDC } from 'oidc-provider';
import type { Config } from '../config/config.js';
import type { SigningJwk } from '../config/secrets.js';
import { findUser } from '../db/repositories/users.js';
import { recordGrantExpiry } from '../db/repositories/events/grant-periods.js';
import type { Schema } from '../db/tables.js';
import { SCOPES } from '../domain/scopes.js';
import { type StorageCrypto, sha256, constantTimeEqual } from '../security/crypto.js';
import { createAdapterFactory, payloadKey } from './adapter.js';
import { createIntrospection, introspectedEntity } from './introspection.js';
import { accountLabel, deviceCodeConfirmPage, deviceCodeInputPage, deviceSuccessPage, errorPage, type PageFrame } from './pages/pages.js';
import { signedInUserOf } from './pages/request-account.js';
import { boundUserOf } from './bound-user.js';
import { noteRevokedGrantOwner } from './audit.js';

export const OAUTH_BASE = '/auth/oauth2';

export const OAUTH_ROUTES = {
  authorization: `${OAUTH_BASE}/authorize`,
  token: `${OAUTH_BASE}/token`,
  introspection: `${OAUTH_BASE}/introspect`,
  revocation: `${OAUTH_BASE}/revoke`,
  jwks: `${OAUTH_BASE}/jwks`,
  userinfo: `${OAUTH_BASE}/userinfo`,
  device_authorization: `${OAUTH_BASE}/device_authorization`,
  code_verification: `${OAUTH_BASE}/device`,
} as const;

const BACK_CHANNEL_PATHS: ReadonlySet<string> = new Set([
  OAUTH_ROUTES.token,
  OAUTH_ROUTES.introspection,
  OAUTH_ROUTES.revocation,
  OAUTH_ROUTES.device_authorization,
  OAUTH_ROUTES.userinfo,
  OAUTH_ROUTES.jwks,
]);

export interface ProviderDependencies {
  config: Config;
  db: Kysely<Schema>;
  crypto: StorageCrypto;
  signingKeys: SigningJwk[];
  cookieSecrets: string[];
}

export function createProvider({ config, db, crypto, signingKeys, cookieSecrets }: ProviderDependencies): Provider {
  const { ttl } = config;
  const slideGrant = grantSlider(db, crypto, ttl.refreshToken, config.grantMaxTtl);
  /** The device pages' frame: the installation, and the signed-in account with a way out. */
  const frameOf = async (ctx: KoaContextWithOIDC): Promise<PageFrame> => {
    const userId = signedInUserOf(ctx.req);
    // An error page must render even when the database does not answer: the id alone then.
    const user = userId ? await findUser(db, userId).catch(() => undefined) : undefined;
    return { instanceName: config.instanceName, account: userId ? { label: accountLabel(userId, user?.username) } : undefined };
  };
  const configuration: Configuration = {
    adapter: createAdapterFactory(db, crypto),
    clients: [],
    async findAccount(_ctx, sub) {
      const user = await findUser(db, sub);
      if (!user) return undefined;
      return {
        accountId: user.id,
        async claims() {
          return { sub: user.id, preferred_username: user.username ?? undefined, name: user.username ?? undefined };
        },
      };
    },
    claims: { openid: ['sub'], profile: ['preferred_username', 'name'] },
    scopes: [...SCOPES],
    responseTypes: ['code'],
    pkce: { required: () => true },
    routes: OAUTH_ROUTES,
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}`, policy: policyWithBoundUser() },
    cookies: {
      names: { session: 'switchboard_op_session', interaction: 'switchboard_interaction', resume: 'switchboard_resume' },
      keys: cookieSecrets,
      long: { signed: true, httpOnly: true, sameSite: 'lax' },
      short: { signed: true, httpOnly: true, sameSite: 'lax' },
    },
    jwks: { keys: signingKeys },
    enabledJWA: {
      idTokenSigningAlgValues: ['RS256', 'ES256'],
      userinfoSigningAlgValues: ['RS256', 'ES256'],
      introspectionSigningAlgValues: ['RS256', 'ES256'],
    },
    clientAuthMethods: ['none', 'client_secret_basic', 'client_secret_post'],
    async revokeGrantPolicy(ctx) {
      // The library's default: revoking an access token leaves its grant alone.
      if (ctx.oidc.route === 'revocation' && ctx.oidc.entities.AccessToken) return false;
      await noteRevokedGrantOwner(ctx);
      return true;
    },
    allowOmittingSingleRegisteredRedirectUri: false,
    // Lifetimes (see slideGrant): every token request that uses a grant moves the grant's end to
    // REFRESH_TOKEN_TTL from now, up to GRANT_MAX_TTL after the grant was made, and no token is
    // issued to outlive its grant. These two hooks are the library's only asynchronous steps after
    // the client, the code or refresh token and the grant are checked and before the refresh token
    // is made (for a rotation, before the access token too).
    rotateRefreshToken: async (ctx) => {
      await slideGrant(ctx);
      return true;
    },
    issueRefreshToken: async (ctx, client, code) => {
      await slideGrant(ctx);
      return client.grantTypeAllowed('refresh_token') && code.scopes.has('offline_access');
    },
    ttl: {
      AccessToken: withinGrant(ttl.accessToken),
      ClientCredentials: ttl.accessToken,
      AuthorizationCode: ttl.authorizationCode,
      RefreshToken: withinGrant(ttl.refreshToken),
      DeviceCode: ttl.deviceCode,
      IdToken: ttl.accessToken,
      Interaction: 3600,
      // SESSION_TTL from the sign-in, as the service's own cookie (browser-session.ts), never
      // extended by use: one sign-in lifetime for both.
      Session: (_ctx, session) => Math.max(1, (session.loginTs ?? Math.floor(Date.now() / 1000)) + ttl.session - Math.floor(Date.now() / 1000)),
      // A new grant (at consent) lasts REFRESH_TOKEN_TTL; token requests slide it (slideGrant).
      Grant: ttl.refreshToken,
    },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      introspection: {
        enabled: true,
        // A client may introspect only the tokens issued to it: no token leaks across clients.
        allowedPolicy: async (_ctx, client, token) => token.clientId === client.clientId,
      },
      revocation: {
        enabled: true,
        // A client can revoke only its own tokens; for any other token the answer is the same
        // 200 an unknown token gets (RFC 7009 §2.2), so nothing is revealed.
        allowedPolicy: async (_ctx, client, token) => token.clientId === client.clientId,
      },
      userinfo: { enabled: true },
      resourceIndicators: { enabled: false },
      pushedAuthorizationRequests: { enabled: false },
      dPoP: { enabled: false },
      rpInitiatedLogout: { enabled: false },
      deviceFlow: {
        enabled: true,
        charset: 'base-20',
        mask: '****-****',
        async userCodeInputSource(ctx, form, _out, err) {
          const message = !err
            ? 'Enter the code shown by the app you are connecting.'
            : err.name === 'NoCodeError' || 'userCode' in err
              ? 'That code is not valid or has expired. Check it and try again.'
              : 'The request could not be completed. Start again from the app.';
          ctx.type = 'html';
          ctx.body = deviceCodeInputPage(await frameOf(ctx), form, message, Boolean(err));
        },
        async userCodeConfirmSource(ctx, form, client, _deviceInfo, userCode) {
          ctx.type = 'html';
          ctx.body = deviceCodeConfirmPage(await frameOf(ctx), form, client.clientName ?? client.clientId, userCode);
        },
        async successSource(ctx) {
          ctx.type = 'html';
          const client = ctx.oidc.client;
          ctx.body = deviceSuccessPage(await frameOf(ctx), client?.clientName ?? client?.clientId ?? 'The app');
        },
      },
    },
    async renderError(ctx, out) {
      // Back-channel endpoints answer machines: RFC 6749 JSON, whatever Accept says.
      if (BACK_CHANNEL_PATHS.has(ctx.path)) {
        ctx.type = 'json';
        ctx.body = { error: out.error, ...(out.error_description ? { error_description: out.error_description } : {}) };
        return;
      }
      ctx.type = 'html';
      ctx.body = errorPage('Something went wrong', out.error_description ?? 'The request could not be completed.', {
        Error: out.error,
      }, await frameOf(ctx));
    },
  };

  const provider = new Provider(config.publicUrl, configuration);
  provider.proxy = config.trustProxy;

  // Client secrets are stored as SHA-256 hashes, so compare the hash of what the client sent.
  // (The library's symmetric-key features that would need the plain secret are disabled above.)
  provider.Client.prototype.compareClientSecret = async function compareHashedSecret(this: { clientSecret?: string }, actual: string) {
    return typeof this.clientSecret === 'string' && constantTimeEqual(this.clientSecret, sha256(actual));
  };

  const introspection = createIntrospection(provider, db);
  provider.use(offlineAccessAsksForConsent);
  provider.use(async function introspectionResponseShape(ctx, next) {
    await next();
    // RFC 7662 answers carry exactly the spec's fields, as the JSON form does.
    if (ctx.path !== OAUTH_ROUTES.introspection || ctx.status !== 200) return;
    const token = introspectedEntity(ctx.oidc.entities as Record<string, unknown>);
    if ((ctx.body as { active?: boolean } | undefined)?.active && token) ctx.body = await introspection.describe(token);
  });
  return provider;
}

/**
 * OpenID Connect drops `offline_access` unless the request says `prompt=consent`. Plain OAuth 2.1
 * clients do not know that rule, so a request asking for offline access without any prompt gets
 * `prompt=consent` added: the user is asked, and the refresh token is issued.
 */
async function offlineAccessAsksForConsent(ctx: KoaContextWithOIDC, next: () => Promise<void>) {
  if (ctx.method === 'GET' && ctx.path === OAUTH_ROUTES.authorization) {
    const { scope, prompt } = ctx.query;
    if (typeof scope === 'string' && scope.split(' ').includes('offline_access') && prompt === undefined) {
      ctx.query = { ...ctx.query, prompt: 'consent' };
    }
  }
  await next();
}

const epochSeconds = () => Math.floor(Date.now() / 1000);

/**
 * A token lifetime of `seconds`, but never past the end of the grant the token is issued under, so
 * that a token's `exp` (in introspection, and `expires_in`) is when it stops working. The grant is
 * the token endpoint's, already slid by this request when it issues a refresh token.
 */
function withinGrant(seconds: number) {
  return (ctx: KoaContextWithOIDC | undefined): number => {
    const end = ctx?.oidc?.entities.Grant?.exp;
    return end === undefined ? seconds : Math.max(1, Math.min(seconds, end - epochSeconds()));
  };
}

/**
 * `slideGrant(ctx)` moves the end of the token request's grant to `refreshTtl` from now, but never
 * past `maxTtl` after the grant was made (the user's approval; approving again while the grant
 * lives reuses it), and never earlier than it was. A link that is used keeps working; one unused
 * for `refreshTtl`, or older than `maxTtl`, ends, and the user approves the app again.
 */
function grantSlider(db: Kysely<Schema>, crypto: StorageCrypto, refreshTtl: number, maxTtl: number) {
  return async function slideGrant(ctx: KoaContextWithOIDC): Promise<void> {
    const grant = ctx.oidc.entities.Grant;
    if (!grant) return;
    const now = epochSeconds();
    const end = Math.min(now + refreshTtl, (grant.iat ?? now) + maxTtl);
    if (grant.exp !== undefined && grant.exp >= end) return;
    grant.exp = end;
    // Stored as the adapter stores it (grant.save()), but only over the grant's existing row: a
    // replay of the code or refresh token in another request may have revoked the grant since this
    // request read it, and an upsert would bring it back, with the tokens issued since.
    const { payload } = await (grant as unknown as { getValueAndPayload(): Promise<{ payload: object }> }).getValueAndPayload();
    const idHash = payloadKey(crypto, 'Grant', 'id', grant.jti);
    const expiresAt = Date.now() + (end - now) * 1000;
    const updated = await db
      .updateTable('oidc_payloads')
      .set({ payload: crypto.seal(payload, idHash), expires_at: expiresAt })
      .where('id_hash', '=', idHash)
      .executeTakeFirst();
    if (updated.numUpdatedRows === 0n) throw new errors.InvalidGrant('grant revoked');
    // Its app keeps seeing events as long as the grant lives (db/repositories/grant-periods.ts).
    await recordGrantExpiry(db, grant.jti, expiresAt);
  };
}

/**
 * oidc-provider's prompts, plus one rule: a request whose `login_hint` names a Discord user (the
 * bot's /link names the person who ran it) is for that user only. When the browser's account is
 * anyone else, the login step runs even with a live session, and refuses (login-and-consent/routes.ts),
 * so a device code passed to someone else can never be approved into their account.
 */
function policyWithBoundUser() {
  const policy = interactionPolicy.base();
  policy.get('login')?.checks.add(
    new interactionPolicy.Check('bound_user', 'the request is for another account than the one signed in', (ctx: KoaContextWithOIDC) => {
      const bound = boundUserOf(ctx.oidc.params);
      const accountId = ctx.oidc.session?.accountId;
      return bound !== undefined && accountId !== undefined && accountId !== bound
        ? interactionPolicy.Check.REQUEST_PROMPT
        : interactionPolicy.Check.NO_NEED_TO_PROMPT;
    }),
  );
  return policy;
}
