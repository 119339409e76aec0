// The bot's only way to the service: HTTP, as any third-party client. Every failure becomes an
// ApiError with a sentence a chat user can read: the service's own error body when there is one,
// otherwise what went wrong (down, too slow, rate-limited). Short rate-limit waits are honoured
// by retrying once; longer ones are reported with the wait.
import { setTimeout as sleep } from 'node:timers/promises';
import { request } from './http.js';
import type { Alter } from '../domain/alter.js';
import type { Autoproxy, AutoproxyStateChange } from '../domain/autoproxy.js';
import type { Front, FrontHistory, Switch } from '../domain/front.js';
import type { ImportMode, ImportReport } from '../domain/import/model.js';
import type { MessageInfo, ProxiedMessage } from '../domain/proxied-message.js';
import { profileETag, type ProxyProfile } from '../domain/proxy-profile.js';
import type { System } from '../domain/system.js';
import type { Tag } from '../domain/tag.js';
import { GUILD_REVISION_HEADER, type GuildSettings } from '../domain/guild.js';

/** `misconfigured`: the service refused the bot's own client credentials (not the user's grant). */
export type ApiErrorKind = 'problem' | 'unavailable' | 'timeout' | 'rate-limited' | 'unauthorized' | 'oauth' | 'misconfigured';

/** What users are told while the service refuses the bot's client credentials. */
export const MISCONFIGURED_MESSAGE = 'The bot is misconfigured: switchboard does not accept its client credentials right now. Your link is kept; please tell the bot’s operator.';

/** One entry of the service's error body: `field` is the API's name (`avatarUrl`), not an option's. */
export interface ServiceProblem {
  type: string;
  friendly: string;
  field?: string;
}

export class ApiError extends Error {
  constructor(
    readonly kind: ApiErrorKind,
    readonly status: number,
    /** The service's error type (`duplicate`, `invalid_grant`, …) or the kind. */
    readonly type: string,
    friendly: string,
    readonly field?: string,
    readonly retryAfterSeconds?: number,
    /** Every problem the service reported (validation names each bad field); empty for the bot's own errors. */
    readonly problems: readonly ServiceProblem[] = [],
  ) {
    super(friendly);
    this.name = 'ApiError';
  }
}

/** One alter at the front and since when. */
/** An event as the feed gives it (the fields the bot reads; see domain/events.ts for all). */
export interface FeedEvent {
  type: string;
  timestamp: string;
  data: {
    userId: string;
    actor: { clientId: string | null; clientName: string | null; self: boolean };
    alter?: Alter;
    alterId?: number;
    alterIds?: number[];
  };
}

export interface EventFeedPage {
  events: FeedEvent[];
  next: string;
  more: boolean;
}

export interface Fronter {
  alter: Alter;
  since: string;
}

export interface TokenSet {
  accessToken: string;
  refreshToken: string | undefined;
  /** Epoch milliseconds. */
  expiresAt: number;
  scope: string;
}

export interface DeviceAuthorization {
  deviceCode: string;
  userCode: string;
  verificationUriComplete: string;
  intervalSeconds: number;
  expiresInSeconds: number;
}

export type DevicePoll = { status: 'pending' } | { status: 'slow-down' } | { status: 'approved'; tokens: TokenSet };

export interface ApiClientOptions {
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  timeoutMs: number;
  /** Longest Retry-After the client waits out by itself before giving up. */
  maxRetryWaitSeconds?: number;
}

interface CallOptions {
  token?: string;
  headers?: Record<string, string>;
  json?: unknown;
  /** A JSON body sent byte for byte (an import file: re-serialising it could change it). */
  rawJson?: Buffer;
  form?: Record<string, string>;
  clientAuth?: boolean;
  /** Instead of the client's timeout, for calls that do much more work than the others. */
  timeoutMs?: number;
}

export type { ImportMode, ImportReport };

export interface ImportOptions {
  mode: ImportMode;
  dryRun: boolean;
  /** Import switches into the front history too. */
  history: boolean;
  /** One key per confirmed preview: the service applies a key's import once, then repeats its report. */
  idempotencyKey?: string;
}

/** Imports and exports read, check and write whole systems: they get more time than other calls. */
export const IMPORT_TIMEOUT_MS = 120_000;

const SCOPE = 'openid offline_access alters:read alters:write system:read system:write system:ai-ap messages:read messages:write';
/** What the bot's own client-credentials token may do: read public data and message info. */
const CLIENT_SCOPE = 'alters:read system:read messages:read';
/** What users are told when the bot may not read as itself (lookups and message info without a link). */
export const CLIENT_MISCONFIGURED_MESSAGE = `The bot is misconfigured: switchboard does not let it look things up on its own (its client needs the client_credentials grant and the scopes ${CLIENT_SCOPE}). Please tell the bot’s operator.`;

/** The server's settings revision a proxy profile answer tells (undefined from a service without servers' settings). */
function guildRevisionOf(headers: Record<string, string | string[] | undefined>): number | undefined {
  const raw = headers[GUILD_REVISION_HEADER];
  const revision = typeof raw === 'string' && /^[0-9]{1,15}$/.test(raw) ? Number(raw) : undefined;
  return revision;
}

/** What users are told when the bot may not manage servers' settings. */
export const GUILDS_MISCONFIGURED_MESSAGE = 'The bot is misconfigured: switchboard does not let it manage server settings (its client needs the client_credentials grant and the guilds:manage scope, for a first-party client). Please tell the bot’s operator.';

/** A proxy profile answer: `guildRevision` is the server's settings revision, on 304 too. */
export type ProxyProfileAnswer = ({ notModified: true } | { notModified: false; profile: ProxyProfile; etag: string }) & { guildRevision?: number | undefined };

export function createApiClient(options: ApiClientOptions) {
  const base = options.baseUrl.replace(/\/+$/, '');
  const basic = `Basic ${Buffer.from(`${encodeURIComponent(options.clientId)}:${encodeURIComponent(options.clientSecret)}`).toString('base64')}`;
  const maxWait = options.maxRetryWaitSeconds ?? 2;

  async function send(method: string, path: string, call: CallOptions): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: unknown; text: string }> {
    const headers: Record<string, string> = { accept: 'application/json', ...call.headers };
    if (call.token) headers.authorization = `Bearer ${call.token}`;
    if (call.clientAuth) headers.authorization = basic;
    let body: string | Buffer | undefined;
    if (call.rawJson !== undefined) {
      headers['content-type'] = 'application/json';
      body = call.rawJson;
    } else if (call.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(call.json);
    } else if (call.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(call.form).toString();
    }
    const timeoutMs = call.timeoutMs ?? options.timeoutMs;
    try {
      const response = await request(`${base}${path}`, {
        method: method as 'GET',
        headers,
        body,
        headersTimeout: timeoutMs,
        bodyTimeout: timeoutMs,
        signal: AbortSignal.timeout(timeoutMs),
      });
      const text = await response.body.text();
      let parsed: unknown;
      try {
        parsed = text === '' ? undefined : JSON.parse(text);
      } catch {
        parsed = undefined;
      }
      return { status: response.statusCode, headers: response.headers, body: parsed, text };
    } catch (error) {
      const name = (error as { name?: string; code?: string }).name ?? '';
      const code = (error as { code?: string }).code ?? '';
      if (name === 'TimeoutError' || name === 'AbortError' || code.startsWith('UND_ERR_') && code.includes('TIMEOUT')) {
        throw new ApiError('timeout', 0, 'timeout', 'switchboard took too long to answer. Try again in a moment.');
      }
      throw new ApiError('unavailable', 0, 'unavailable', 'switchboard cannot be reached right now. Try again in a moment.');
    }
  }

  function retryAfterOf(headers: Record<string, string | string[] | undefined>): number {
    const raw = Number(headers['retry-after']);
    return Number.isFinite(raw) && raw >= 0 ? Math.ceil(raw) : 1;
  }

  /** A /v1 call, answered with a 2xx response; errors from the service's error body. */
  async function callApi(method: string, path: string, call: CallOptions, retried = false): Promise<Awaited<ReturnType<typeof send>>> {
    const response = await send(method, path, call);
    if (response.status === 429) {
      const wait = retryAfterOf(response.headers);
      if (!retried && wait <= maxWait) {
        await sleep(wait * 1000);
        return callApi(method, path, call, true);
      }
      throw new ApiError('rate-limited', 429, 'rate-limited', `Too many requests right now. Try again in ${wait} s.`, undefined, wait);
    }
    // 304 answers only conditional requests, whose callers look for it.
    if ((response.status >= 200 && response.status < 300) || response.status === 304) return response;
    const errors = (response.body as { errors?: Array<{ type?: string; friendly?: string; field?: string }> } | undefined)?.errors ?? [];
    const first = errors[0];
    if (response.status === 401) throw new ApiError('unauthorized', 401, first?.type ?? 'invalid-auth', 'Your link to switchboard has expired.');
    if (response.status === 413) throw new ApiError('problem', 413, first?.type ?? 'too-large', first?.friendly ?? 'That is more than switchboard accepts in one request.');
    if (response.status >= 500 || !first) {
      throw new ApiError('unavailable', response.status, first?.type ?? 'server-error', 'switchboard had a problem with that request. Try again in a moment.');
    }
    const problems = errors.map((problem) => ({ type: problem.type ?? 'error', friendly: problem.friendly ?? 'That did not work.', ...(problem.field ? { field: problem.field } : {}) }));
    throw new ApiError('problem', response.status, first.type ?? 'error', first.friendly ?? 'That did not work.', first.field, undefined, problems);
  }

  /** A /v1 call: JSON in and out. */
  async function api<T>(method: string, path: string, call: CallOptions): Promise<T> {
    return (await callApi(method, path, call)).body as T;
  }

  /** An OAuth call: form in, JSON out, RFC 6749 errors. */
  async function oauth<T>(path: string, form: Record<string, string>): Promise<T> {
    const response = await send('POST', path, { form, clientAuth: true });
    const body = (response.body ?? {}) as Record<string, unknown>;
    if (response.status === 429) {
      const wait = retryAfterOf(response.headers);
      throw new ApiError('rate-limited', 429, 'rate-limited', `Too many requests right now. Try again in ${wait} s.`, undefined, wait);
    }
    if (response.status >= 500) throw new ApiError('unavailable', response.status, 'server-error', 'switchboard had a problem. Try again in a moment.');
    if (response.status >= 400) {
      const error = typeof body.error === 'string' ? body.error : 'invalid_request';
      // Client authentication failed (a wrong BOT_CLIENT_SECRET, an unknown or re-registered
      // client): a configuration error of the bot, never a sign that a user's grant is gone.
      if (response.status === 401 || error === 'invalid_client' || error === 'unauthorized_client') {
        throw new ApiError('misconfigured', response.status, error, MISCONFIGURED_MESSAGE);
      }
      throw new ApiError('oauth', response.status, error, typeof body.error_description === 'string' ? body.error_description : error);
    }
    return body as T;
  }

  const tokenSet = (body: Record<string, unknown>): TokenSet => ({
    accessToken: String(body.access_token),
    refreshToken: typeof body.refresh_token === 'string' ? body.refresh_token : undefined,
    expiresAt: Date.now() + Number(body.expires_in ?? 3600) * 1000,
    scope: String(body.scope ?? ''),
  });

  const userPath = (user: string) => `/v1/users/${encodeURIComponent(user)}`;

  // The bot's own client-credentials token, for what it asks as itself on behalf of people who
  // never linked: message info, and other users' public profiles (lookups by moderators). One
  // token, shared by concurrent callers, renewed a minute before it expires or after a 401. It
  // holds read scopes only, and the service lets such a token read nothing but public data of
  // users named by id.
  /** One client-credentials token source per scope set: shared by concurrent callers, renewed a minute early or after a 401. */
  function clientTokenSource(scope: string, misconfigured: string) {
    let current: { value: string; expiresAt: number } | undefined;
    let pending: Promise<string> | undefined;
    function token(): Promise<string> {
      if (current && current.expiresAt - Date.now() > 60_000) return Promise.resolve(current.value);
      pending ??= oauth<Record<string, unknown>>('/auth/oauth2/token', { grant_type: 'client_credentials', scope })
        .catch((error: unknown) => {
          // A client registered without client_credentials or these scopes (a bot run apart from the
          // service, registered by hand): the operator's to fix, and the asker has no link to keep.
          const refused = error instanceof ApiError && (error.kind === 'misconfigured' || (error.kind === 'oauth' && ['invalid_scope', 'unauthorized_client', 'unsupported_grant_type'].includes(error.type)));
          throw refused ? new ApiError('misconfigured', error.status, error.type, misconfigured) : error;
        })
        .then((body) => {
          current = { value: String(body.access_token), expiresAt: Date.now() + Number(body.expires_in ?? 3600) * 1000 };
          return current.value;
        })
        .finally(() => {
          pending = undefined;
        });
      return pending;
    }
    return async function withToken<T>(call: (token: string) => Promise<T>): Promise<T> {
      const first = await token();
      try {
        return await call(first);
      } catch (error) {
        if (!(error instanceof ApiError && error.kind === 'unauthorized')) throw error;
        if (current?.value === first) current = undefined;
        return call(await token());
      }
    };
  }
  const withClientToken = clientTokenSource(CLIENT_SCOPE, CLIENT_MISCONFIGURED_MESSAGE);
  /** The event feed is the app's own (events:manage), apart from the read scopes, so lookups never depend on it. */
  const withEventsToken = clientTokenSource('events:manage', 'The bot’s client may not read the event feed (it needs client_credentials and the events:manage scope).');
  /** Servers' settings are the bot's own business (guilds:manage), apart from the read scopes. */
  const withGuildsToken = clientTokenSource('guilds:manage', GUILDS_MISCONFIGURED_MESSAGE);

  const getFront = (token: string, user: string) => api<{ data: Front }>('GET', `${userPath(user)}/front`, { token }).then((r) => r.data);

  return {
    /** Starts a device flow; with `forUser`, only that Discord user can approve it (login_hint). */
    async startDeviceAuthorization(forUser?: string): Promise<DeviceAuthorization> {
      const body = await oauth<Record<string, unknown>>('/auth/oauth2/device_authorization', { client_id: options.clientId, scope: SCOPE, ...(forUser ? { login_hint: forUser } : {}) });
      return {
        deviceCode: String(body.device_code),
        userCode: String(body.user_code),
        verificationUriComplete: String(body.verification_uri_complete),
        intervalSeconds: Number(body.interval ?? 5),
        expiresInSeconds: Number(body.expires_in ?? 600),
      };
    },

    async pollDeviceToken(deviceCode: string): Promise<DevicePoll> {
      try {
        const body = await oauth<Record<string, unknown>>('/auth/oauth2/token', { grant_type: 'urn:ietf:params:oauth:grant-type:device_code', device_code: deviceCode });
        return { status: 'approved', tokens: tokenSet(body) };
      } catch (error) {
        if (error instanceof ApiError && error.type === 'authorization_pending') return { status: 'pending' };
        if (error instanceof ApiError && error.type === 'slow_down') return { status: 'slow-down' };
        throw error;
      }
    },

    async refresh(refreshToken: string): Promise<TokenSet> {
      return tokenSet(await oauth<Record<string, unknown>>('/auth/oauth2/token', { grant_type: 'refresh_token', refresh_token: refreshToken }));
    },

    async revoke(token: string, hint: 'access_token' | 'refresh_token'): Promise<void> {
      await oauth('/auth/oauth2/revoke', { token, token_type_hint: hint });
    },

    /** A one-time link that signs `userId` in and lands on `returnTo` (the device page). */
    async mintLoginLink(userId: string, returnTo: string): Promise<string> {
      const response = await send('POST', '/auth/login-links', { json: { user_id: userId, return_to: returnTo }, clientAuth: true });
      const body = response.body as { url?: string } | undefined;
      if (response.status !== 200 && response.status !== 201 || !body?.url) throw new ApiError('unavailable', response.status, 'login-link', 'switchboard could not prepare a sign-in link. Try again.');
      return body.url;
    },

    getSystem: (token: string, user: string) => api<{ data: System }>('GET', `${userPath(user)}/system`, { token }).then((r) => r.data),
    editSystem: (token: string, patch: Record<string, unknown>) => api<System>('POST', `${userPath('@me')}/system/edit`, { token, json: patch }),
    createAlter: (token: string, body: Record<string, unknown>) => api<Alter>('POST', `${userPath('@me')}/system/create-alter`, { token, json: body }),
    editAlter: (token: string, alterId: number, patch: Record<string, unknown>) =>
      api<Alter>('POST', `${userPath('@me')}/alters/${alterId}/edit`, { token, json: patch }),
    getAlter: (token: string, user: string, alterId: number) => api<{ isSelf: boolean; data: Alter }>('GET', `${userPath(user)}/alters/${alterId}`, { token }),
    listAlters: (token: string, user: string, page: { skip: number; max: number }) =>
      api<Alter[]>('GET', `${userPath(user)}/system/list-alters?max=${page.max}&skip=${page.skip}`, { token }),
    /** A switch: these alters front from now on, the first as primary; none switches out. */
    switchFront: (token: string, alterIds: number[]) => api<{ success: true; data: Switch }>('POST', `${userPath('@me')}/front`, { token, json: { alters: alterIds } }).then((r) => r.data),
    deleteAlter: (token: string, alterId: number) => api<{ deleted: true }>('POST', `${userPath('@me')}/alters/${alterId}/delete`, { token, json: {} }),
    createTag: (token: string, body: Record<string, unknown>) => api<Tag>('POST', `${userPath('@me')}/system/create-tag`, { token, json: body }),
    editTag: (token: string, tagId: number, patch: Record<string, unknown>) => api<Tag>('POST', `${userPath('@me')}/tags/${tagId}/edit`, { token, json: patch }),
    getTag: (token: string, user: string, tagId: number) => api<{ isSelf: boolean; data: Tag }>('GET', `${userPath(user)}/tags/${tagId}`, { token }),
    listTags: (token: string, user: string, page: { skip: number; max: number }) =>
      api<Tag[]>('GET', `${userPath(user)}/system/list-tags?max=${page.max}&skip=${page.skip}`, { token }),
    /** Adds and removes members in one call (one transaction at the service). */
    changeTagMembers: (token: string, tagId: number, change: { add?: number[]; remove?: number[] }) =>
      api<Tag>('POST', `${userPath('@me')}/tags/${tagId}/alters`, { token, json: change }),
    deleteTag: (token: string, tagId: number) => api<{ deleted: true }>('POST', `${userPath('@me')}/tags/${tagId}/delete`, { token, json: {} }),
    /** The proxy profile, revalidated: `notModified` when `etag` is still current. */
    async getProxyProfile(token: string, guildId: string, etag?: string): Promise<ProxyProfileAnswer> {
      const path = `${userPath('@me')}/proxy-profile?guild=${encodeURIComponent(guildId)}`;
      if (etag) {
        const response = await send('GET', path, { token, headers: { 'if-none-match': etag } });
        const guildRevision = guildRevisionOf(response.headers);
        if (response.status === 304) return { notModified: true, guildRevision };
        if (response.status === 200) return { notModified: false, profile: response.body as ProxyProfile, etag: String(response.headers.etag ?? ''), guildRevision };
      }
      // Errors (and a first fetch) go through the common path for its error handling.
      const response = await callApi('GET', path, { token });
      const profile = response.body as ProxyProfile;
      return { notModified: false, profile, etag: profileETag(Number(profile.systemId), profile.revision), guildRevision: guildRevisionOf(response.headers) };
    },
    /** A server's settings as the bot's own client; `notModified` when `etag` is still current. */
    getGuildSettings(guildId: string, etag?: string): Promise<{ notModified: true } | { notModified: false; settings: GuildSettings; etag: string }> {
      const path = `/v1/guilds/${encodeURIComponent(guildId)}/settings`;
      return withGuildsToken(async (token) => {
        const response = await callApi('GET', path, { token, ...(etag ? { headers: { 'if-none-match': etag } } : {}) });
        if (response.status === 304) return { notModified: true as const };
        return { notModified: false as const, settings: response.body as GuildSettings, etag: String(response.headers.etag ?? '') };
      });
    },
    /** A partial edit of a server's settings, naming who makes it and the permission the bot checked. */
    editGuildSettings: (guildId: string, body: Record<string, unknown>) =>
      withGuildsToken((token) => api<GuildSettings>('POST', `/v1/guilds/${encodeURIComponent(guildId)}/settings/edit`, { token, json: body })),
    recordMessage: (token: string, body: { messageId: string; originalMessageId: string; channelId: string; guildId: string; alterId: number; proxiedName?: string; autoproxyState?: AutoproxyStateChange }) =>
      api<{ data: ProxiedMessage; autoproxyStateApplied: boolean | null; revision: number }>('POST', `${userPath('@me')}/messages`, { token, json: body }),
    reproxyMessage: (token: string, messageId: string, body: { messageId: string; alterId: number; proxiedName?: string }) =>
      api<{ data: ProxiedMessage }>('POST', `${userPath('@me')}/messages/${encodeURIComponent(messageId)}/reproxy`, { token, json: body }),
    applyAutoproxyState: (token: string, change: AutoproxyStateChange) =>
      api<{ applied: boolean; revision: number }>('POST', `${userPath('@me')}/autoproxy/state`, { token, json: change }),
    listAutoproxy: (token: string) => api<{ data: Autoproxy[] }>('GET', `${userPath('@me')}/autoproxy`, { token }).then((r) => r.data),
    setAutoproxy: (token: string, body: { serverId: string; autoproxyMode: string; autoproxyAlter?: string | null }) =>
      api<{ data: Autoproxy }>('POST', `${userPath('@me')}/autoproxy`, { token, json: body }).then((r) => r.data),
    removeAutoproxy: (token: string, serverId: string) => api<{ removed: boolean }>('POST', `${userPath('@me')}/autoproxy/remove`, { token, json: { serverId } }),
    /** Message info as the asker sees it: their own token, or the bot's client token when they never linked. */
    async messageInfo(messageId: string, token?: string): Promise<MessageInfo> {
      const read = (bearer: string) => api<{ data: MessageInfo }>('GET', `/v1/messages/${encodeURIComponent(messageId)}`, { token: bearer });
      return (token ? await read(token) : await withClientToken(read)).data;
    },
    getFront,
    frontHistory: (token: string, user: string, page: { skip: number; max: number }) =>
      api<{ data: FrontHistory }>('GET', `${userPath(user)}/front/history?max=${page.max}&skip=${page.skip}`, { token }).then((r) => r.data),
    /**
     * Who is fronting now, as the viewer may see it: the one place the bot reads the front's shape
     * (the cards only ever see this list): the newest switch, whoever made it, primary first.
     */
    async currentFront(token: string, user: string): Promise<Fronter[]> {
      const { current, alters } = await getFront(token, user);
      if (!current) return [];
      const byId = new Map(alters.map((alter) => [alter.alterId, alter]));
      return current.alterIds.flatMap((alterId) => {
        const alter = byId.get(alterId);
        return alter ? [{ alter, since: current.switchedAt }] : [];
      });
    },
    /** Runs `call` with the bot's own client-credentials token (public reads as nobody in particular). */
    withClientToken,
    /** The events of users who authorized the bot, after `after` (omitted: the position of "now"). */
    eventFeed(after: string | undefined, max: number): Promise<EventFeedPage> {
      const query = new URLSearchParams({ max: String(max), ...(after === undefined ? {} : { after }) });
      return withEventsToken((token) => api<{ data: EventFeedPage }>('GET', `/v1/events/feed?${query.toString()}`, { token }).then((r) => r.data));
    },
    /** Imports an export file (its bytes as they were uploaded); a dry run only reports. */
    importSystem(token: string, file: Buffer, choice: ImportOptions): Promise<ImportReport> {
      const query = new URLSearchParams({ mode: choice.mode, dryRun: String(choice.dryRun), history: String(choice.history) });
      const headers: Record<string, string> = choice.idempotencyKey ? { 'idempotency-key': choice.idempotencyKey } : {};
      return api<{ data: ImportReport }>('POST', `${userPath('@me')}/system/import?${query.toString()}`, { token, rawJson: file, headers, timeoutMs: IMPORT_TIMEOUT_MS }).then((r) => r.data);
    },
    /** The caller's whole system as a PluralKit-compatible export file, byte for byte. */
    async exportSystem(token: string): Promise<Buffer> {
      const response = await callApi('GET', `${userPath('@me')}/system/export`, { token, timeoutMs: IMPORT_TIMEOUT_MS });
      return Buffer.from(response.text, 'utf8');
    },
  };
}

export type ApiClient = ReturnType<typeof createApiClient>;
