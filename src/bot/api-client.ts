// The bot's only way to the service: HTTP, as any third-party client. This file is the
// endpoints, typed from src/domain/'s schemas; api/transport.ts does the HTTP (timeouts, retries,
// rate limits, the bot's own tokens) and api/errors.ts turns every failure into an ApiError with
// a sentence a chat user can read.
import type { AccountCode, SystemAccounts } from '../domain/accounts.js';
import type { Alter } from '../domain/alter.js';
import type { AlterSort } from '../domain/alter-list.js';
import type { Autoproxy, AutoproxyStateAnswer, AutoproxyStateChange } from '../domain/autoproxy.js';
import type { Front, FrontHistory, Switch } from '../domain/front.js';
import type { FrontStats } from '../domain/front-stats.js';
import { IMAGE_UPLOAD_PART, type ImagePurpose, type UploadedImage } from '../domain/images.js';
import type { ImportMode, ImportReport } from '../domain/import/model.js';
import type { MessageInfo, ProxiedMessage, RecordMessageAnswer } from '../domain/proxied-message.js';
import { profileETag, type ProxyProfile } from '../domain/proxy-profile.js';
import type { System } from '../domain/system.js';
import type { Tag } from '../domain/tag.js';
import type { ProfileField } from '../domain/profile-fields.js';
import { GUILD_REVISION_HEADER, type GuildSettings } from '../domain/guild.js';
import { ApiError } from './api/errors.js';
import { answerOf, createTransport, type Headers, type TransportOptions } from './api/transport.js';

export { ApiError, MISCONFIGURED_MESSAGE, type ApiErrorKind, type ServiceProblem } from './api/errors.js';

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
    switchId?: number;
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

export type ApiClientOptions = TransportOptions;

/** A proxied message's record, as the bot sends it (POST /messages). */
export interface RecordMessageBody {
  messageId: string;
  originalMessageId: string;
  channelId: string;
  guildId: string;
  alterId: number;
  proxiedName?: string;
  autoproxyState?: AutoproxyStateChange;
}

export type { ImportMode, ImportReport };

export interface ImportOptions {
  mode: ImportMode;
  dryRun: boolean;
  /** Import switches into the front history too. */
  history: boolean;
  /** Simply Plural: custom fronts imported (default) or left out. */
  customFronts?: 'import' | 'skip';
  /** Simply Plural: what friends could see becomes public (default: everything private). */
  friendsArePublic?: boolean;
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
function guildRevisionOf(headers: Headers): number | undefined {
  const raw = headers[GUILD_REVISION_HEADER];
  const revision = typeof raw === 'string' && /^[0-9]{1,15}$/.test(raw) ? Number(raw) : undefined;
  return revision;
}

/** What users are told when the bot may not manage servers' settings. */
export const GUILDS_MISCONFIGURED_MESSAGE = 'The bot is misconfigured: switchboard does not let it manage server settings (its client needs the client_credentials grant and the guilds:manage scope, for a first-party client). Please tell the bot’s operator.';

/** A proxy profile answer: `guildRevision` is the server's settings revision, on 304 too. */
export type ProxyProfileAnswer = ({ notModified: true } | { notModified: false; profile: ProxyProfile; etag: string }) & { guildRevision?: number | undefined };

export function createApiClient(options: ApiClientOptions) {
  const { send, callApi, api, oauth, clientTokenSource } = createTransport(options);

  const tokenSet = (body: Record<string, unknown>): TokenSet => ({
    accessToken: String(body.access_token),
    refreshToken: typeof body.refresh_token === 'string' ? body.refresh_token : undefined,
    expiresAt: Date.now() + Number(body.expires_in ?? 3600) * 1000,
    scope: String(body.scope ?? ''),
  });

  const userPath = (user: string) => `/v1/users/${encodeURIComponent(user)}`;

  const withClientToken = clientTokenSource(CLIENT_SCOPE, CLIENT_MISCONFIGURED_MESSAGE);
  /** The event feed is the app's own (events:manage), apart from the read scopes, so lookups never depend on it. */
  const withEventsToken = clientTokenSource('events:manage', 'The bot’s client may not read the event feed (it needs client_credentials and the events:manage scope).');
  /** Servers' settings are the bot's own business (guilds:manage), apart from the read scopes. */
  const withGuildsToken = clientTokenSource('guilds:manage', GUILDS_MISCONFIGURED_MESSAGE);

  const getFront = (token: string, user: string) => api<{ data: Front }>('GET', `${userPath(user)}/front`, { token }).then((r) => r.data);

  return {
    /** Starts a device flow; with `forUser`, only that Discord user can approve it (login_hint). */
    async startDeviceAuthorization(forUser?: string): Promise<DeviceAuthorization> {
      const body = await oauth('/auth/oauth2/device_authorization', { client_id: options.clientId, scope: SCOPE, ...(forUser ? { login_hint: forUser } : {}) });
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
        const body = await oauth('/auth/oauth2/token', { grant_type: 'urn:ietf:params:oauth:grant-type:device_code', device_code: deviceCode });
        return { status: 'approved', tokens: tokenSet(body) };
      } catch (error) {
        if (error instanceof ApiError && error.type === 'authorization_pending') return { status: 'pending' };
        if (error instanceof ApiError && error.type === 'slow_down') return { status: 'slow-down' };
        throw error;
      }
    },

    async refresh(refreshToken: string): Promise<TokenSet> {
      return tokenSet(await oauth('/auth/oauth2/token', { grant_type: 'refresh_token', refresh_token: refreshToken }));
    },

    async revoke(token: string, hint: 'access_token' | 'refresh_token'): Promise<void> {
      await oauth('/auth/oauth2/revoke', { token, token_type_hint: hint });
    },

    /** A one-time link that signs `userId` in and lands on `returnTo` (the device page). */
    async mintLoginLink(userId: string, returnTo: string): Promise<string> {
      const response = await send('POST', '/auth/login-links', { json: { user_id: userId, return_to: returnTo }, clientAuth: true });
      const body = response.body as { url?: string } | undefined;
      if ((response.status !== 200 && response.status !== 201) || !body?.url)
        throw new ApiError('unavailable', response.status, 'login-link', 'switchboard could not prepare a sign-in link. Try again.');
      return body.url;
    },

    getSystem: (token: string, user: string) => api<{ data: System }>('GET', `${userPath(user)}/system`, { token }).then((r) => r.data),
    editSystem: (token: string, patch: Record<string, unknown>) => api<System>('POST', `${userPath('@me')}/system/edit`, { token, json: patch }),
    /** A one-time code for another Discord account to join the system (the owning account only). */
    makeAccountCode: (token: string) => api<{ data: AccountCode }>('POST', `${userPath('@me')}/system/accounts/code`, { token, json: {} }).then((r) => r.data),
    /** Joins the system the code was made for, with the joining account's own token. */
    redeemAccountCode: (token: string, code: string, discardOwnSystem: boolean) =>
      api<{ data: SystemAccounts }>('POST', `${userPath('@me')}/system/accounts/redeem`, { token, json: discardOwnSystem ? { code, discardOwnSystem } : { code } }).then((r) => r.data),
    removeAccount: (token: string, account: string) =>
      api<{ data: SystemAccounts }>('POST', `${userPath('@me')}/system/accounts/${account}/remove`, { token, json: {} }).then((r) => r.data),
    createAlter: (token: string, body: Record<string, unknown>) => api<Alter>('POST', `${userPath('@me')}/system/create-alter`, { token, json: body }),
    editAlter: (token: string, alterId: number, patch: Record<string, unknown>) =>
      api<Alter>('POST', `${userPath('@me')}/alters/${alterId}/edit`, { token, json: patch }),
    getAlter: (token: string, user: string, alterId: number) => api<{ isSelf: boolean; data: Alter }>('GET', `${userPath(user)}/alters/${alterId}`, { token }),
    /** A page of alters, optionally ordered (`sort`), of one tag and matching `search` (privacy applies to what is sorted and searched). */
    listAlters: (token: string, user: string, page: { skip: number; max: number }, query: { sort?: AlterSort; tag?: number; search?: string } = {}) => {
      const params = new URLSearchParams({ max: String(page.max), skip: String(page.skip) });
      if (query.sort !== undefined && query.sort !== 'id') params.set('sort', query.sort);
      if (query.tag !== undefined) params.set('tag', String(query.tag));
      if (query.search !== undefined) params.set('search', query.search);
      return api<Alter[]>('GET', `${userPath(user)}/system/list-alters?${params.toString()}`, { token });
    },
    /** A switch: these alters front from now on, the first as primary; none switches out. */
    switchFront: (token: string, alterIds: number[], at?: number) =>
      api<{ success: true; data: Switch }>('POST', `${userPath('@me')}/front`, {
        token,
        json: { alters: alterIds, ...(at === undefined ? {} : { timestamp: new Date(at).toISOString() }) },
      }).then((r) => r.data),
    /** Changes a switch's alters and/or time (each optional). */
    editSwitch: (token: string, switchId: number, edit: { alterIds?: number[]; at?: number }) =>
      api<{ data: Switch }>('POST', `${userPath('@me')}/front/switches/${switchId}/edit`, {
        token,
        json: {
          ...(edit.alterIds === undefined ? {} : { alters: edit.alterIds }),
          ...(edit.at === undefined ? {} : { timestamp: new Date(edit.at).toISOString() }),
        },
      }).then((r) => r.data),
    /** Deletes a switch; `alsoDeleted` names the later twin removed with it. */
    deleteSwitch: (token: string, switchId: number) =>
      api<{ deleted: true; alsoDeleted: number[] }>('POST', `${userPath('@me')}/front/switches/${switchId}/delete`, { token, json: {} }),
    frontStats: (token: string, user: string, query: { from?: number; to?: number; tagId?: number; primary?: boolean }) => {
      const params = new URLSearchParams();
      if (query.from !== undefined) params.set('from', new Date(query.from).toISOString());
      if (query.to !== undefined) params.set('to', new Date(query.to).toISOString());
      if (query.tagId !== undefined) params.set('tag', String(query.tagId));
      if (query.primary) params.set('primary', 'true');
      const search = params.toString();
      return api<{ data: FrontStats }>('GET', `${userPath(user)}/front/stats${search ? `?${search}` : ''}`, { token }).then((r) => r.data);
    },
    deleteAlter: (token: string, alterId: number) => api<{ deleted: true }>('POST', `${userPath('@me')}/alters/${alterId}/delete`, { token, json: {} }),
    /** Deletes the caller's whole system (the service revokes every grant of the account with it, this token's too). */
    deleteSystem: (token: string) => api<{ deleted: true }>('POST', `${userPath('@me')}/system/delete`, { token, json: { confirm: true } }),
    createTag: (token: string, body: Record<string, unknown>) => api<Tag>('POST', `${userPath('@me')}/system/create-tag`, { token, json: body }),
    editTag: (token: string, tagId: number, patch: Record<string, unknown>) =>
      api<Tag>('POST', `${userPath('@me')}/tags/${tagId}/edit`, { token, json: patch }),
    getTag: (token: string, user: string, tagId: number) => api<{ isSelf: boolean; data: Tag }>('GET', `${userPath(user)}/tags/${tagId}`, { token }),
    listTags: (token: string, user: string, page: { skip: number; max: number }) =>
      api<Tag[]>('GET', `${userPath(user)}/system/list-tags?max=${page.max}&skip=${page.skip}`, { token }),
    /** Adds and removes members in one call (one transaction at the service). */
    changeTagMembers: (token: string, tagId: number, change: { add?: number[]; remove?: number[] }) =>
      api<Tag>('POST', `${userPath('@me')}/tags/${tagId}/alters`, { token, json: change }),
    createProfileField: (token: string, body: Record<string, unknown>) => api<ProfileField>('POST', `${userPath('@me')}/system/create-profile-field`, { token, json: body }),
    editProfileField: (token: string, fieldId: number, patch: Record<string, unknown>) =>
      api<ProfileField>('POST', `${userPath('@me')}/profile-fields/${fieldId}/edit`, { token, json: patch }),
    /** Every profile field of the system in its order (at most 100: one page). */
    listProfileFields: (token: string, user: string) => api<ProfileField[]>('GET', `${userPath(user)}/system/list-profile-fields`, { token }),
    orderProfileFields: (token: string, fieldIds: number[]) => api<ProfileField[]>('POST', `${userPath('@me')}/system/order-profile-fields`, { token, json: { fieldIds } }),
    deleteProfileField: (token: string, fieldId: number) => api<{ deleted: true }>('POST', `${userPath('@me')}/profile-fields/${fieldId}/delete`, { token, json: {} }),
    deleteTag: (token: string, tagId: number) => api<{ deleted: true }>('POST', `${userPath('@me')}/tags/${tagId}/delete`, { token, json: {} }),
    /** The proxy profile, revalidated: `notModified` when `etag` is still current. */
    async getProxyProfile(token: string, guildId: string, etag?: string): Promise<ProxyProfileAnswer> {
      const path = `${userPath('@me')}/proxy-profile?guild=${encodeURIComponent(guildId)}`;
      if (etag) {
        const response = await send('GET', path, { token, headers: { 'if-none-match': etag } });
        const guildRevision = guildRevisionOf(response.headers);
        if (response.status === 304) return { notModified: true, guildRevision };
        if (response.status === 200)
          return { notModified: false, profile: answerOf<ProxyProfile>(response), etag: String(response.headers.etag ?? ''), guildRevision };
      }
      // Errors (and a first fetch) go through the common path for its error handling.
      const response = await callApi('GET', path, { token });
      const profile = answerOf<ProxyProfile>(response);
      return { notModified: false, profile, etag: profileETag(Number(profile.systemId), profile.revision), guildRevision: guildRevisionOf(response.headers) };
    },
    /** A server's settings as the bot's own client; `notModified` when `etag` is still current. */
    getGuildSettings(guildId: string, etag?: string): Promise<{ notModified: true } | { notModified: false; settings: GuildSettings; etag: string }> {
      const path = `/v1/guilds/${encodeURIComponent(guildId)}/settings`;
      return withGuildsToken(async (token) => {
        const response = await callApi('GET', path, { token, ...(etag ? { headers: { 'if-none-match': etag } } : {}) });
        if (response.status === 304) return { notModified: true as const };
        return { notModified: false as const, settings: answerOf<GuildSettings>(response), etag: String(response.headers.etag ?? '') };
      });
    },
    /** A partial edit of a server's settings, naming who makes it and the permission the bot checked. */
    editGuildSettings: (guildId: string, body: Record<string, unknown>) =>
      withGuildsToken((token) => api<GuildSettings>('POST', `/v1/guilds/${encodeURIComponent(guildId)}/settings/edit`, { token, json: body })),
    recordMessage: (token: string, body: RecordMessageBody) => api<RecordMessageAnswer>('POST', `${userPath('@me')}/messages`, { token, json: body }),
    reproxyMessage: (token: string, messageId: string, body: { messageId: string; alterId: number; proxiedName?: string }) =>
      api<{ data: ProxiedMessage }>('POST', `${userPath('@me')}/messages/${encodeURIComponent(messageId)}/reproxy`, { token, json: body }),
    applyAutoproxyState: (token: string, change: AutoproxyStateChange) =>
      api<AutoproxyStateAnswer>('POST', `${userPath('@me')}/autoproxy/state`, { token, json: change }),
    listAutoproxy: (token: string) => api<{ data: Autoproxy[] }>('GET', `${userPath('@me')}/autoproxy`, { token }).then((r) => r.data),
    setAutoproxy: (token: string, body: { serverId: string; autoproxyMode: string; autoproxyAlter?: string | null; account?: string }) =>
      api<{ data: Autoproxy }>('POST', `${userPath('@me')}/autoproxy`, { token, json: body }).then((r) => r.data),
    /** `account`: that account's own entry; without it, the system's. */
    removeAutoproxy: (token: string, serverId: string, account?: string) =>
      api<{ removed: boolean }>('POST', `${userPath('@me')}/autoproxy/remove`, { token, json: account === undefined ? { serverId } : { serverId, account } }),
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
      // Only when not the default: the service's request hash (Idempotency-Key) counts them only then too.
      if (choice.customFronts === 'skip') query.set('customFronts', 'skip');
      if (choice.friendsArePublic === true) query.set('friendsArePublic', 'true');
      const headers: Record<string, string> = choice.idempotencyKey ? { 'idempotency-key': choice.idempotencyKey } : {};
      return api<{ data: ImportReport }>('POST', `${userPath('@me')}/system/import?${query.toString()}`, {
        token,
        rawJson: file,
        headers,
        timeoutMs: IMPORT_TIMEOUT_MS,
      }).then((r) => r.data);
    },
    /** Hosts an image at the service (checked, scaled and stored there); the URL to put in a field. */
    uploadImage(token: string, bytes: Buffer, purpose: ImagePurpose): Promise<UploadedImage> {
      const file = { part: IMAGE_UPLOAD_PART, filename: `${purpose}.bin`, bytes };
      return api<{ data: UploadedImage }>('POST', `${userPath('@me')}/images?purpose=${purpose}`, { token, file, timeoutMs: IMPORT_TIMEOUT_MS }).then(
        (r) => r.data,
      );
    },
    /** The caller's whole system as a PluralKit-compatible export file, byte for byte. */
    async exportSystem(token: string): Promise<Buffer> {
      const response = await callApi('GET', `${userPath('@me')}/system/export`, { token, timeoutMs: IMPORT_TIMEOUT_MS });
      return Buffer.from(response.text, 'utf8');
    },
  };
}

export type ApiClient = ReturnType<typeof createApiClient>;
