// A fake Discord on loopback, good enough to drive the real, unmodified discord.js 14 and
// @discordjs/rest, plus the OAuth parts "Sign in with Discord" uses (the authorize page answers at
// once for the configured user, the token endpoint and the Bearer /users/@me).
//
// The bot side: REST under /api/v10 (gateway info, application and bot user, command
// registration, interaction callbacks and interaction webhooks) and a JSON gateway over `ws` at
// /gateway (HELLO, IDENTIFY, READY, GUILD_CREATE for one guild, heartbeats, RESUME). Tests
// dispatch interactions through the live gateway session and read back what the bot answered.
// Every HTTP request is recorded so tests can assert what the service sent.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';

export interface RecordedRequest {
  method: string;
  /** Path with each segment percent-decoded (`%40original` is recorded as `@original`). */
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: string;
}

export interface FakeDiscordUser {
  id: string;
  username: string;
}

export type Json = Record<string, unknown>;

/** A user object as the Discord API sends it. */
export interface ApiUser extends Json {
  id: string;
  username: string;
  global_name: string | null;
  avatar: string | null;
  discriminator: string;
  bot: boolean;
}

/** A message object as the Discord API sends it (the fields the fake keeps, plus any extra). */
export interface ApiMessage extends Json {
  id: string;
  channel_id: string;
  content: string;
  embeds: Json[];
  components: Json[];
  attachments: Json[];
  flags: number;
  author: ApiUser;
  timestamp: string;
  edited_timestamp: string | null;
}

/** A gateway INTERACTION_CREATE payload (the `d`); builders fill every field discord.js reads. */
export interface InteractionPayload extends Json {
  id: string;
  application_id: string;
  type: number;
  token: string;
  data?: Json;
  message?: ApiMessage;
}

export interface RecordedFile {
  field: string;
  filename: string;
  contentType: string;
  data: Buffer;
}

export interface RecordedResponse {
  /** callback: POST /interactions/{id}/{token}/callback; edit: PATCH of @original or a
   * follow-up; followup: POST /webhooks/{app}/{token}; delete: DELETE of a response message. */
  kind: 'callback' | 'edit' | 'followup' | 'delete';
  /** For callbacks: 4 reply, 5 deferred reply, 6 deferred update, 7 update, 8 autocomplete, 9 modal. */
  callbackType?: number;
  /** The message created or changed, when there is one ('@original' resolved to its id). */
  messageId?: string;
  /** The message data: for callbacks the callback's `data` (choices for type 8, the modal for
   * type 9), otherwise the request body; `payload_json` when the request was multipart. */
  body: Json;
  files: RecordedFile[];
  receivedAt: bigint;
}

export interface InteractionHandle {
  id: string;
  token: string;
  payload: InteractionPayload;
  /** process.hrtime.bigint() when INTERACTION_CREATE went out on the socket (or was buffered). */
  sentAt: bigint;
  responses: RecordedResponse[];
  /** First recorded response (already recorded or yet to come) the predicate accepts. */
  waitForResponse(predicate?: (response: RecordedResponse) => boolean, timeoutMs?: number): Promise<RecordedResponse>;
  /** The message the interaction's @original currently is, with all edits applied. */
  latestMessage(): ApiMessage | undefined;
}

export interface RestFailureMatcher {
  method?: string;
  /** Tested against the decoded path, e.g. /api/v10/interactions/{id}/{token}/callback. */
  path: RegExp;
}

export interface RestFailure {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** How many matching requests fail; unlimited when left out. */
  times?: number;
}

export interface InteractionBase {
  user: FakeDiscordUser | ApiUser;
  /** The invoking member's permissions in the channel (a bitfield string). */
  permissions?: string;
  locale?: string;
  channelId?: string;
}

export interface SlashCommandInput extends InteractionBase {
  name: string;
  /** `data.options` exactly as Discord sends them (nested under the subcommand if one is given). */
  options?: Json[];
  subcommand?: string;
  subcommandGroup?: string;
  /** `data.resolved`, e.g. from resolvedUsers() for user options. */
  resolved?: Json;
  commandId?: string;
}

export type AutocompleteInput = SlashCommandInput;

export interface ComponentInput extends InteractionBase {
  customId: string;
  /** The message the component is on (e.g. a handle's latestMessage()). */
  message: ApiMessage;
  /** 2 button (default), 3 string select, 5-8 the other selects. */
  componentType?: number;
  values?: string[];
  resolved?: Json;
}

export interface UserContextMenuInput extends InteractionBase {
  name: string;
  targetUser: FakeDiscordUser | ApiUser;
  commandId?: string;
}

export interface ModalSubmitInput extends InteractionBase {
  customId: string;
  /** `data.components` as Discord sends them (action rows or labels with text inputs). */
  components: Json[];
  message?: ApiMessage;
}

export interface FakeDiscord {
  apiBase: string;
  clientId: string;
  clientSecret: string;
  requests: RecordedRequest[];
  /** Who "signs in" at the authorize page; undefined makes the user press Cancel. */
  setUser(user: FakeDiscordUser | undefined): void;

  botToken: string;
  /** The application id; also the bot user's id and the OAuth client id, as on Discord. */
  applicationId: string;
  botUser: ApiUser;
  guild: { id: string; name: string };
  channelId: string;
  /** Commands registered with PUT/POST, globally or for a guild. */
  commands(guildId?: string): Json[];
  /** IDENTIFY payloads received, in order. */
  identifies: Json[];
  resumeCount(): number;
  waitForReady(timeoutMs?: number): Promise<void>;
  disconnectGateway(code?: number): void;
  /** Resolves once a RESUME has been answered after the last disconnectGateway() call. */
  waitForResume(timeoutMs?: number): Promise<void>;
  setRestFailure(matcher: RestFailureMatcher, response: RestFailure | undefined): void;

  slashCommand(input: SlashCommandInput): InteractionPayload;
  autocomplete(input: AutocompleteInput): InteractionPayload;
  button(input: ComponentInput): InteractionPayload;
  userContextMenu(input: UserContextMenuInput): InteractionPayload;
  modalSubmit(input: ModalSubmitInput): InteractionPayload;
  dispatchInteraction(payload: InteractionPayload): InteractionHandle;
  /** Any other gateway event (op 0) on the live session. */
  dispatchEvent(type: string, data: unknown): void;
  /** Stores a message in the fake (e.g. one carrying buttons that no interaction created). */
  createMessage(fields: Partial<ApiMessage>): ApiMessage;
  getMessage(id: string): ApiMessage | undefined;
  close(): Promise<void>;
}

const DISCORD_EPOCH = 1420070400000n;
const EPHEMERAL = 1 << 6;
const LOADING = 1 << 7;

// @everyone's default-ish permissions in a fresh guild, and what an invited bot typically gets;
// the bot also needs webhooks and message management for proxying.
const EVERYONE_PERMISSIONS = (
  (1n << 0n) | (1n << 6n) | (1n << 10n) | (1n << 11n) | (1n << 14n) | (1n << 15n) | (1n << 16n) | (1n << 18n) | (1n << 31n)
).toString();
const BOT_PERMISSIONS = (BigInt(EVERYONE_PERMISSIONS) | (1n << 13n) | (1n << 29n)).toString();

/** An API user object; `extra` overrides any field. */
export function user(id: string, username: string, extra: Partial<ApiUser> = {}): ApiUser {
  return {
    id,
    username,
    global_name: null,
    avatar: null,
    discriminator: '0',
    bot: false,
    system: false,
    public_flags: 0,
    flags: 0,
    banner: null,
    accent_color: null,
    avatar_decoration_data: null,
    ...extra,
  };
}

function toApiUser(value: FakeDiscordUser | ApiUser): ApiUser {
  return 'discriminator' in value ? value : user(value.id, value.username);
}

/** A guild member object without `user`, as in `resolved.members` (which carry permissions). */
function partialMember(permissions?: string): Json {
  return {
    roles: [],
    nick: null,
    avatar: null,
    banner: null,
    premium_since: null,
    joined_at: new Date(Date.UTC(2024, 0, 1)).toISOString(),
    pending: false,
    communication_disabled_until: null,
    flags: 0,
    ...(permissions === undefined ? {} : { permissions }),
  };
}

/** `data.resolved` for user options or targets: users and their guild members. */
export function resolvedUsers(users: (FakeDiscordUser | ApiUser)[], permissions = EVERYONE_PERMISSIONS): Json {
  const resolved: { users: Record<string, ApiUser>; members: Record<string, Json> } = { users: {}, members: {} };
  for (const u of users) {
    resolved.users[u.id] = toApiUser(u);
    resolved.members[u.id] = partialMember(permissions);
  }
  return resolved;
}

/** The headers and body of a Discord 429 that @discordjs/rest honours. */
export function rateLimited(retryAfterSeconds: number, times = 1): RestFailure {
  return {
    status: 429,
    times,
    headers: {
      'retry-after': String(retryAfterSeconds),
      'x-ratelimit-limit': '5',
      'x-ratelimit-remaining': '0',
      'x-ratelimit-reset': String(Date.now() / 1000 + retryAfterSeconds),
      'x-ratelimit-reset-after': String(retryAfterSeconds),
      'x-ratelimit-bucket': 'fakebucket',
      'x-ratelimit-scope': 'user',
    },
    body: { message: 'You are being rate limited.', retry_after: retryAfterSeconds, global: false },
  };
}

function role(id: string, name: string, position: number, permissions: string, extra: Json = {}): Json {
  const colors = { primary_color: 0, secondary_color: null, tertiary_color: null };
  return { id, name, color: 0, colors, hoist: false, icon: null, unicode_emoji: null, position, permissions, managed: false, mentionable: false, flags: 0, ...extra };
}

function textChannel(id: string, name: string, guildId: string): Json {
  return { id, type: 0, guild_id: guildId, name, position: 0, permission_overwrites: [], parent_id: null, topic: null, nsfw: false, last_message_id: null, rate_limit_per_user: 0, flags: 0 };
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: Json,
  ) {
    super(String(body.message));
  }
}

interface GatewaySession {
  id: string;
  socket: WebSocket | undefined;
  seq: number;
  /** Every dispatch with its sequence number, so a RESUME can replay what the client missed. */
  sent: { s: number; t: string; d: unknown }[];
}

interface InteractionState {
  payload: InteractionPayload;
  responses: RecordedResponse[];
  listeners: Set<() => void>;
  acknowledged: boolean;
  originalMessageId?: string;
  followUps: Set<string>;
}

interface FailureRule {
  matcher: RestFailureMatcher;
  response: RestFailure;
  remaining: number;
}

function waitWithTimeout(what: string, timeoutMs: number, register: (done: () => void) => () => void): Promise<void> {
  return new Promise((resolve, reject) => {
    let unregister = (): void => undefined;
    const timer = setTimeout(() => {
      unregister();
      reject(new Error(`fake Discord: timed out after ${timeoutMs} ms waiting for ${what}`));
    }, timeoutMs);
    unregister = register(() => {
      clearTimeout(timer);
      unregister();
      resolve();
    });
  });
}

export async function startFakeDiscord(): Promise<FakeDiscord> {
  const clientId = '100000000000000001';
  const clientSecret = randomBytes(16).toString('hex');
  const applicationId = clientId;
  const botToken = `${Buffer.from(applicationId).toString('base64url')}.${randomBytes(4).toString('base64url')}.${randomBytes(20).toString('base64url')}`;
  const botUser = user(applicationId, 'Switchboard', { bot: true, global_name: null });
  const guild = { id: '200000000000000002', name: 'Fake Guild' };
  const channelId = '300000000000000003';
  const channelName = 'general';
  const botRoleId = '200000000000000012';

  const requests: RecordedRequest[] = [];
  const codes = new Map<string, { user: FakeDiscordUser; redirectUri: string }>();
  const tokens = new Map<string, FakeDiscordUser>();
  let currentUser: FakeDiscordUser | undefined;

  let lastSnowflake = 0n;
  const snowflake = (): string => {
    const fromClock = (BigInt(Date.now()) - DISCORD_EPOCH) << 22n;
    lastSnowflake = fromClock > lastSnowflake ? fromClock : lastSnowflake + 1n;
    return lastSnowflake.toString();
  };

  const globalCommands: Json[] = [];
  const guildCommands = new Map<string, Json[]>();
  const messages = new Map<string, ApiMessage>();
  const interactionsByToken = new Map<string, InteractionState>();
  let failures: FailureRule[] = [];

  const sessions = new Map<string, GatewaySession>();
  const sockets = new Set<WebSocket>();
  let liveSession: GatewaySession | undefined;
  const identifies: Json[] = [];
  let resumes = 0;
  let resumesAtLastDisconnect = 0;
  const readyListeners = new Set<() => void>();
  const resumeListeners = new Set<() => void>();

  let port = 0;
  const gatewayUrl = (): string => `ws://127.0.0.1:${port}/gateway`;

  // ---- messages --------------------------------------------------------------------------------

  const newMessage = (fields: Partial<ApiMessage>): ApiMessage => {
    const message: ApiMessage = {
      id: snowflake(),
      type: 0,
      channel_id: channelId,
      guild_id: guild.id,
      author: botUser,
      content: '',
      timestamp: new Date().toISOString(),
      edited_timestamp: null,
      tts: false,
      mention_everyone: false,
      mentions: [],
      mention_roles: [],
      attachments: [],
      embeds: [],
      pinned: false,
      flags: 0,
      components: [],
      ...fields,
    };
    messages.set(message.id, message);
    return message;
  };

  const attachmentsFor = (files: RecordedFile[], body: Json, previous: Json[] = []): Json[] => {
    const kept = Array.isArray(body.attachments)
      ? previous.filter((a) => (body.attachments as Json[]).some((b) => b.id === a.id))
      : previous;
    const added = files.map((file) => {
      const id = snowflake();
      const url = `http://127.0.0.1:${port}/attachments/${channelId}/${id}/${encodeURIComponent(file.filename)}`;
      return { id, filename: file.filename, size: file.data.length, content_type: file.contentType, url, proxy_url: url };
    });
    return [...kept, ...added];
  };

  /** The fields of a create/edit body that end up on the message. */
  const messageFields = (body: Json, files: RecordedFile[], previous?: ApiMessage): Partial<ApiMessage> => {
    const fields: Partial<ApiMessage> = {};
    if (typeof body.content === 'string') fields.content = body.content;
    if (Array.isArray(body.embeds)) fields.embeds = body.embeds as Json[];
    if (Array.isArray(body.components)) fields.components = body.components as Json[];
    if (body.poll !== undefined) fields.poll = body.poll;
    if (files.length > 0 || Array.isArray(body.attachments)) fields.attachments = attachmentsFor(files, body, previous?.attachments);
    const oldFlags = previous?.flags ?? 0;
    const requested = typeof body.flags === 'number' ? body.flags : undefined;
    // Ephemerality is fixed when the message is created; edits only change the other flags.
    fields.flags = previous
      ? (oldFlags & EPHEMERAL) | ((requested ?? oldFlags) & ~(EPHEMERAL | LOADING))
      : (requested ?? 0);
    return fields;
  };

  const editMessage = (message: ApiMessage, body: Json, files: RecordedFile[]): ApiMessage => {
    Object.assign(message, messageFields(body, files, message), { edited_timestamp: new Date().toISOString() });
    return message;
  };

  // ---- gateway ---------------------------------------------------------------------------------

  const send = (socket: WebSocket, payload: Json): void => {
    socket.send(JSON.stringify(payload));
  };

  const dispatchTo = (session: GatewaySession, t: string, d: unknown): void => {
    session.seq += 1;
    const event = { s: session.seq, t, d };
    session.sent.push(event);
    // With no socket the event waits in `sent` for the client's RESUME, as on Discord.
    if (session.socket) send(session.socket, { op: 0, ...event });
  };

  const guildCreate = (): Json => {
    const joinedAt = new Date(Date.UTC(2024, 0, 1)).toISOString();
    return {
      id: guild.id,
      name: guild.name,
      icon: null,
      splash: null,
      discovery_splash: null,
      banner: null,
      description: null,
      owner_id: '900000000000000009',
      afk_channel_id: null,
      afk_timeout: 300,
      verification_level: 0,
      default_message_notifications: 0,
      explicit_content_filter: 0,
      mfa_level: 0,
      nsfw_level: 0,
      premium_tier: 0,
      premium_subscription_count: 0,
      premium_progress_bar_enabled: false,
      preferred_locale: 'en-US',
      features: [],
      application_id: null,
      system_channel_id: channelId,
      system_channel_flags: 0,
      rules_channel_id: null,
      public_updates_channel_id: null,
      safety_alerts_channel_id: null,
      vanity_url_code: null,
      max_members: 500000,
      max_video_channel_users: 25,
      joined_at: joinedAt,
      large: false,
      unavailable: false,
      lazy: true,
      member_count: 2,
      roles: [
        role(guild.id, '@everyone', 0, EVERYONE_PERMISSIONS),
        role(botRoleId, botUser.username, 1, BOT_PERMISSIONS, { managed: true, tags: { bot_id: botUser.id } }),
      ],
      emojis: [],
      stickers: [],
      // Discord always includes the bot's own member, which guild.members.me relies on.
      members: [{ ...partialMember(), user: botUser, roles: [botRoleId], deaf: false, mute: false }],
      channels: [textChannel(channelId, channelName, guild.id)],
      threads: [],
      presences: [],
      voice_states: [],
      stage_instances: [],
      guild_scheduled_events: [],
      soundboard_sounds: [],
      embedded_activities: [],
    };
  };

  const onIdentify = (socket: WebSocket, d: Json, identified: { session?: GatewaySession }): void => {
    identifies.push(d);
    if (d.token !== botToken) {
      socket.close(4004, 'Authentication failed.');
      return;
    }
    if (identified.session) {
      socket.close(4005, 'Already authenticated.');
      return;
    }
    const session: GatewaySession = { id: randomBytes(16).toString('hex'), socket, seq: 0, sent: [] };
    sessions.set(session.id, session);
    identified.session = session;
    liveSession = session;
    dispatchTo(session, 'READY', {
      v: 10,
      user: { ...botUser, verified: true, mfa_enabled: false, email: null },
      guilds: [{ id: guild.id, unavailable: true }],
      session_id: session.id,
      session_type: 'normal',
      resume_gateway_url: gatewayUrl(),
      ...(Array.isArray(d.shard) ? { shard: d.shard } : {}),
      application: { id: applicationId, flags: 0 },
      private_channels: [],
      presences: [],
      relationships: [],
      guild_join_requests: [],
      user_settings: {},
      geo_ordered_rtc_regions: [],
      auth_session_id_hash: randomBytes(16).toString('base64'),
      _trace: ['["fake-discord",{}]'],
    });
    dispatchTo(session, 'GUILD_CREATE', guildCreate());
    for (const listener of [...readyListeners]) listener();
  };

  const onResume = (socket: WebSocket, d: Json, identified: { session?: GatewaySession }): void => {
    const session = typeof d.session_id === 'string' ? sessions.get(d.session_id) : undefined;
    if (d.token !== botToken || !session) {
      send(socket, { op: 9, d: false, s: null, t: null });
      return;
    }
    session.socket = socket;
    identified.session = session;
    liveSession = session;
    const seenSeq = typeof d.seq === 'number' ? d.seq : 0;
    for (const event of session.sent) if (event.s > seenSeq) send(socket, { op: 0, ...event });
    dispatchTo(session, 'RESUMED', null);
    resumes += 1;
    for (const listener of [...resumeListeners]) listener();
  };

  const wss = new WebSocketServer({ noServer: true });
  wss.on('connection', (socket: WebSocket) => {
    sockets.add(socket);
    const identified: { session?: GatewaySession } = {};
    socket.on('error', () => undefined);
    socket.on('message', (raw) => {
      let payload: Json;
      try {
        payload = JSON.parse(raw.toString()) as Json;
      } catch {
        socket.close(4002, 'Error while decoding payload.');
        return;
      }
      const d = (payload.d ?? {}) as Json;
      switch (payload.op) {
        case 1:
          send(socket, { op: 11, d: null, s: null, t: null });
          break;
        case 2:
          onIdentify(socket, d, identified);
          break;
        case 6:
          onResume(socket, d, identified);
          break;
        default:
          // Presence updates, member requests and voice state: nothing the tests need answered.
          break;
      }
    });
    socket.on('close', (code) => {
      sockets.delete(socket);
      const session = identified.session;
      if (!session || session.socket !== socket) return;
      session.socket = undefined;
      // A normal close ends the session on Discord; other codes leave it resumable.
      if (code === 1000 || code === 1001) {
        sessions.delete(session.id);
        if (liveSession === session) liveSession = undefined;
      }
    });
    send(socket, { op: 10, d: { heartbeat_interval: 41250, _trace: ['["fake-discord",{}]'] }, s: null, t: null });
  });

  // ---- interactions ----------------------------------------------------------------------------

  const stateFor = (token: string): InteractionState => {
    const state = interactionsByToken.get(token);
    if (!state) throw new HttpError(404, { message: 'Unknown Webhook', code: 10015 });
    return state;
  };

  const record = (state: InteractionState, response: RecordedResponse): void => {
    state.responses.push(response);
    for (const listener of [...state.listeners]) listener();
  };

  const interactionMetadata = (state: InteractionState): Json => {
    const p = state.payload;
    const member = p.member as Json | undefined;
    return {
      id: p.id,
      type: p.type,
      user: member?.user ?? p.user,
      authorizing_integration_owners: p.authorizing_integration_owners,
      ...(typeof p.data?.name === 'string' ? { name: p.data.name } : {}),
    };
  };

  const messageTypeFor = (state: InteractionState): number => {
    if (state.payload.type !== 2) return 0;
    return state.payload.data?.type === 1 ? 20 : 23;
  };

  const onCallback = (id: string, token: string, body: Json, files: RecordedFile[], withResponse: boolean, receivedAt: bigint): { status: number; body?: Json } => {
    const state = interactionsByToken.get(token);
    if (!state || state.payload.id !== id) throw new HttpError(404, { message: 'Unknown interaction', code: 10062 });
    if (state.acknowledged) throw new HttpError(400, { message: 'Interaction has already been acknowledged.', code: 40060 });
    const type = Number(body.type);
    const data = (body.data ?? {}) as Json;
    let message: ApiMessage | undefined;
    const component = state.payload.message ? messages.get(state.payload.message.id) : undefined;
    switch (type) {
      case 4:
      case 5: {
        const fields = messageFields(data, files);
        if (type === 5) fields.flags = ((fields.flags ?? 0) & EPHEMERAL) | LOADING;
        message = newMessage({
          ...fields,
          type: messageTypeFor(state),
          channel_id: state.payload.channel_id as string,
          webhook_id: applicationId,
          application_id: applicationId,
          interaction_metadata: interactionMetadata(state),
        });
        state.originalMessageId = message.id;
        break;
      }
      case 6:
      case 7:
        if (!component) throw new HttpError(400, { message: 'Invalid Form Body', code: 50035 });
        if (type === 7) editMessage(component, data, files);
        message = component;
        state.originalMessageId = component.id;
        break;
      case 8:
      case 9:
        break;
      default:
        throw new HttpError(400, {
          message: 'Invalid Form Body',
          code: 50035,
          errors: { type: { _errors: [{ code: 'BASE_TYPE_CHOICES', message: 'Value must be one of {1, 4, 5, 6, 7, 8, 9, 10, 12}.' }] } },
        });
    }
    state.acknowledged = true;
    record(state, { kind: 'callback', callbackType: type, messageId: message?.id, body: data, files, receivedAt });
    if (!withResponse) return { status: 204 };
    return {
      status: 200,
      body: {
        interaction: {
          id: state.payload.id,
          type: state.payload.type,
          activity_instance_id: null,
          response_message_id: message?.id ?? null,
          response_message_loading: type === 5,
          response_message_ephemeral: message ? (message.flags & EPHEMERAL) !== 0 : false,
        },
        resource: { type, ...(message ? { message } : {}) },
      },
    };
  };

  const resolveMessageId = (state: InteractionState, messageId: string): ApiMessage => {
    const id = messageId === '@original' ? state.originalMessageId : messageId;
    const message = id === undefined ? undefined : messages.get(id);
    if (!message || (messageId !== '@original' && !state.followUps.has(message.id))) {
      throw new HttpError(404, { message: 'Unknown Message', code: 10008 });
    }
    return message;
  };

  // ---- HTTP ------------------------------------------------------------------------------------

  const readForm = async (raw: Buffer, contentType: string): Promise<{ json: Json; files: RecordedFile[] }> => {
    const form = await new Response(raw, { headers: { 'content-type': contentType } }).formData();
    let json: Json = {};
    const files: RecordedFile[] = [];
    for (const [field, value] of form.entries()) {
      if (typeof value === 'string') {
        if (field === 'payload_json') json = JSON.parse(value) as Json;
      } else {
        files.push({ field, filename: value.name, contentType: value.type, data: Buffer.from(await value.arrayBuffer()) });
      }
    }
    return { json, files };
  };

  const readBody = async (req: IncomingMessage, raw: Buffer): Promise<{ json: Json; files: RecordedFile[] }> => {
    const contentType = req.headers['content-type'] ?? '';
    if (contentType.startsWith('multipart/form-data')) return readForm(raw, contentType);
    if (contentType.startsWith('application/json') && raw.length > 0) {
      try {
        return { json: JSON.parse(raw.toString('utf8')) as Json, files: [] };
      } catch {
        throw new HttpError(400, { message: 'The request body contains invalid JSON.', code: 50109 });
      }
    }
    return { json: {}, files: [] };
  };

  const requireBot = (req: IncomingMessage): void => {
    if (req.headers.authorization !== `Bot ${botToken}`) throw new HttpError(401, { message: '401: Unauthorized', code: 0 });
  };

  const storeCommands = (existing: Json[], incoming: Json[], scopeGuildId?: string): Json[] => {
    const stored = incoming.map((command) => {
      const type = command.type ?? 1;
      const previous = existing.find((c) => c.name === command.name && c.type === type);
      return {
        id: previous?.id ?? snowflake(),
        application_id: applicationId,
        version: snowflake(),
        default_member_permissions: null,
        type,
        description: '',
        dm_permission: true,
        nsfw: false,
        integration_types: [0],
        contexts: null,
        ...(scopeGuildId ? { guild_id: scopeGuildId } : {}),
        ...command,
      };
    });
    existing.splice(0, existing.length, ...stored);
    return stored;
  };

  const commandListFor = (guildId: string | undefined): Json[] => {
    if (!guildId) return globalCommands;
    if (guildId !== guild.id) throw new HttpError(403, { message: 'Missing Access', code: 50001 });
    let list = guildCommands.get(guildId);
    if (!list) guildCommands.set(guildId, (list = []));
    return list;
  };

  const applicationObject = (): Json => ({
    id: applicationId,
    name: botUser.username,
    icon: null,
    description: '',
    summary: '',
    type: null,
    bot_public: true,
    bot_require_code_grant: false,
    verify_key: randomBytes(32).toString('hex'),
    flags: 0,
    hook: true,
    is_monetized: false,
    team: null,
    owner: user('900000000000000009', 'owner'),
    bot: botUser,
    approximate_guild_count: 1,
    approximate_user_install_count: 0,
    interactions_endpoint_url: null,
    role_connections_verification_url: null,
    redirect_uris: [],
    tags: [],
    integration_types_config: { '0': {} },
  });

  /** The bot's REST API under /api/v{n}; returns undefined for routes it does not know. */
  const botRoute = async (
    req: IncomingMessage,
    url: URL,
    segments: string[],
    raw: Buffer,
    receivedAt: bigint,
  ): Promise<{ status: number; body?: unknown } | undefined> => {
    const method = req.method ?? 'GET';
    const route = segments.join('/');
    const auth = req.headers.authorization ?? '';
    // A wrong bot token is the only 401 the fake gives: @discordjs/rest drops its token on 401.
    if (auth.startsWith('Bot ')) requireBot(req);

    if (method === 'GET' && route === 'gateway') return { status: 200, body: { url: gatewayUrl() } };
    if (method === 'GET' && route === 'gateway/bot') {
      requireBot(req);
      return { status: 200, body: { url: gatewayUrl(), shards: 1, session_start_limit: { total: 1000, remaining: 999, reset_after: 14_400_000, max_concurrency: 1 } } };
    }
    if (method === 'GET' && route === 'applications/@me') {
      requireBot(req);
      return { status: 200, body: applicationObject() };
    }
    if (method === 'GET' && route === 'users/@me' && auth.startsWith('Bot ')) return { status: 200, body: botUser };

    const [first, second, third, fourth, fifth, sixth] = segments;
    if (first === 'applications' && second === applicationId && (third === 'commands' || (third === 'guilds' && fifth === 'commands'))) {
      requireBot(req);
      const guildId = third === 'guilds' ? fourth : undefined;
      const commandId = third === 'guilds' ? sixth : fourth;
      const list = commandListFor(guildId);
      const { json } = await readBody(req, raw);
      if (commandId === undefined) {
        if (method === 'GET') return { status: 200, body: list };
        if (method === 'PUT') {
          if (!Array.isArray(json)) throw new HttpError(400, { message: 'Invalid Form Body', code: 50035 });
          return { status: 200, body: storeCommands(list, json as Json[], guildId) };
        }
        if (method === 'POST') {
          // Discord upserts by name and type, keeping the id of a command that already exists.
          const existing = list.find((c) => c.name === json.name && c.type === (json.type ?? 1));
          const [created] = storeCommands(existing ? [existing] : [], [json], guildId);
          if (!created) throw new HttpError(400, { message: 'Invalid Form Body', code: 50035 });
          list.splice(0, list.length, ...list.filter((c) => c !== existing), created);
          return { status: existing ? 200 : 201, body: created };
        }
      } else {
        const index = list.findIndex((c) => c.id === commandId);
        if (index < 0) throw new HttpError(404, { message: 'Unknown application command', code: 10063 });
        if (method === 'GET') return { status: 200, body: list[index] };
        if (method === 'DELETE') {
          list.splice(index, 1);
          return { status: 204 };
        }
        if (method === 'PATCH') {
          Object.assign(list[index] ?? {}, json, { version: snowflake() });
          return { status: 200, body: list[index] };
        }
      }
      return undefined;
    }

    if (first === 'channels' && second === channelId && third === undefined && method === 'GET') {
      requireBot(req);
      return { status: 200, body: (guildCreate().channels as Json[])[0] };
    }

    if (first === 'interactions' && second && third && fourth === 'callback' && method === 'POST' && segments.length === 4) {
      const { json, files } = await readBody(req, raw);
      return onCallback(second, third, json, files, url.searchParams.get('with_response') === 'true', receivedAt);
    }

    if (first === 'webhooks' && second === applicationId && third) {
      const state = stateFor(third);
      if (fourth === undefined && method === 'POST') {
        if (!state.acknowledged) throw new HttpError(404, { message: 'Unknown Webhook', code: 10015 });
        const { json, files } = await readBody(req, raw);
        const message = newMessage({
          ...messageFields(json, files),
          channel_id: state.payload.channel_id as string,
          webhook_id: applicationId,
          application_id: applicationId,
          interaction_metadata: interactionMetadata(state),
        });
        state.followUps.add(message.id);
        record(state, { kind: 'followup', messageId: message.id, body: json, files, receivedAt });
        return url.searchParams.get('wait') === 'true' ? { status: 200, body: message } : { status: 204 };
      }
      if (fourth === 'messages' && fifth && sixth === undefined) {
        const message = resolveMessageId(state, fifth);
        if (method === 'GET') return { status: 200, body: message };
        if (method === 'PATCH') {
          const { json, files } = await readBody(req, raw);
          editMessage(message, json, files);
          record(state, { kind: 'edit', messageId: message.id, body: json, files, receivedAt });
          return { status: 200, body: message };
        }
        if (method === 'DELETE') {
          messages.delete(message.id);
          state.followUps.delete(message.id);
          if (state.originalMessageId === message.id) state.originalMessageId = undefined;
          record(state, { kind: 'delete', messageId: message.id, body: {}, files: [], receivedAt });
          return { status: 204 };
        }
      }
    }
    return undefined;
  };

  const matchFailure = (method: string, path: string): FailureRule | undefined =>
    failures.find((rule) => rule.remaining > 0 && (!rule.matcher.method || rule.matcher.method.toUpperCase() === method) && rule.matcher.path.test(path));

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://fake');
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks);
    const body = raw.toString('utf8');
    const receivedAt = process.hrtime.bigint();
    const rawSegments = url.pathname.split('/');
    const path = rawSegments.map((s) => { try { return decodeURIComponent(s); } catch { return s; } }).join('/');
    const method = req.method ?? 'GET';
    requests.push({ method, path, query: url.searchParams, headers: req.headers, body });
    const json = (status: number, value?: unknown): void => {
      if (status === 204 || value === undefined) res.writeHead(status).end();
      else res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
    };

    const failure = matchFailure(method, path);
    if (failure) {
      failure.remaining -= 1;
      const { status, body: failBody, headers = {} } = failure.response;
      res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(failBody ?? { message: `${status}: fake failure`, code: 0 }));
      return;
    }

    if (method === 'GET' && path === '/api/oauth2/authorize') {
      const redirect = new URL(url.searchParams.get('redirect_uri') ?? '');
      const state = url.searchParams.get('state') ?? '';
      if (url.searchParams.get('client_id') !== clientId || url.searchParams.get('scope') !== 'identify') return json(400, { error: 'invalid_request' });
      if (!currentUser) {
        redirect.search = new URLSearchParams({ error: 'access_denied', state }).toString();
      } else {
        const code = randomBytes(12).toString('hex');
        codes.set(code, { user: currentUser, redirectUri: url.searchParams.get('redirect_uri') ?? '' });
        redirect.search = new URLSearchParams({ code, state }).toString();
      }
      res.writeHead(302, { location: redirect.toString() }).end();
      return;
    }

    if (method === 'POST' && path === '/api/oauth2/token') {
      const expected = `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`;
      if (req.headers.authorization !== expected) return json(401, { error: 'invalid_client' });
      const form = new URLSearchParams(body);
      const grant = codes.get(form.get('code') ?? '');
      codes.delete(form.get('code') ?? '');
      if (form.get('grant_type') !== 'authorization_code' || !grant || grant.redirectUri !== form.get('redirect_uri')) return json(400, { error: 'invalid_grant' });
      const accessToken = randomBytes(16).toString('hex');
      tokens.set(accessToken, grant.user);
      return json(200, { access_token: accessToken, token_type: 'Bearer', expires_in: 604800, scope: 'identify' });
    }

    // Bearer /users/@me is the signed-in user (OAuth); the bot's form is handled below.
    if (method === 'GET' && /^\/api(\/v\d+)?\/users\/@me$/.test(path) && !(req.headers.authorization ?? '').startsWith('Bot ')) {
      const signedIn = tokens.get((req.headers.authorization ?? '').replace(/^Bearer /, ''));
      if (!signedIn) return json(401, { message: '401: Unauthorized', code: 0 });
      return json(200, { id: signedIn.id, username: signedIn.username, global_name: null, avatar: null, discriminator: '0' });
    }

    const versioned = /^\/api\/v\d+\/(.*)$/.exec(path);
    if (versioned?.[1] !== undefined) {
      try {
        const result = await botRoute(req, url, versioned[1].split('/'), raw, receivedAt);
        if (result) return json(result.status, result.body);
      } catch (error) {
        if (error instanceof HttpError) return json(error.status, error.body);
        throw error;
      }
    }

    json(404, { message: '404: Not Found', code: 0 });
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      console.error('fake Discord: request failed', error);
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ message: '500: Internal Server Error', code: 0 }));
    });
  });
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    requests.push({ method: req.method ?? 'GET', path: url.pathname, query: url.searchParams, headers: req.headers, body: '' });
    if (url.pathname !== '/gateway') {
      socket.destroy();
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws, req));
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  port = typeof address === 'object' && address ? address.port : 0;

  // ---- interaction payload builders ------------------------------------------------------------

  const commandIdFor = (name: string, type: number): string => {
    const registered = [...globalCommands, ...(guildCommands.get(guild.id) ?? [])].find((c) => c.name === name && (c.type ?? 1) === type);
    return typeof registered?.id === 'string' ? registered.id : snowflake();
  };

  const basePayload = (type: number, input: InteractionBase, data: Json): InteractionPayload => {
    const invoker = toApiUser(input.user);
    const permissions = input.permissions ?? EVERYONE_PERMISSIONS;
    const inChannel = input.channelId ?? channelId;
    return {
      id: snowflake(),
      application_id: applicationId,
      type,
      data,
      guild_id: guild.id,
      guild: { id: guild.id, locale: 'en-US', features: [] },
      channel_id: inChannel,
      channel: textChannel(inChannel, inChannel === channelId ? channelName : 'channel', guild.id),
      member: { ...partialMember(permissions), user: invoker, deaf: false, mute: false },
      token: randomBytes(48).toString('base64url'),
      version: 1,
      locale: input.locale ?? 'en-US',
      guild_locale: 'en-US',
      app_permissions: BOT_PERMISSIONS,
      entitlements: [],
      entitlement_sku_ids: [],
      authorizing_integration_owners: { '0': guild.id },
      context: 0,
      attachment_size_limit: 8 * 1024 * 1024,
    };
  };

  const commandOptions = (input: SlashCommandInput): Json[] | undefined => {
    let options = input.options;
    if (input.subcommand) options = [{ type: 1, name: input.subcommand, options: options ?? [] }];
    if (input.subcommandGroup) options = [{ type: 2, name: input.subcommandGroup, options: options ?? [] }];
    return options;
  };

  const commandData = (input: SlashCommandInput): Json => ({
    id: input.commandId ?? commandIdFor(input.name, 1),
    name: input.name,
    type: 1,
    ...(commandOptions(input) ? { options: commandOptions(input) } : {}),
    ...(input.resolved ? { resolved: input.resolved } : {}),
  });

  // A snapshot: the payload may wait in a session buffer while the stored message changes.
  const componentMessage = (message: ApiMessage): ApiMessage => structuredClone(messages.get(message.id) ?? newMessage(message));

  // ---- the fake --------------------------------------------------------------------------------

  return {
    apiBase: `http://127.0.0.1:${port}/api`,
    clientId,
    clientSecret,
    requests,
    setUser(next) {
      currentUser = next;
    },

    botToken,
    applicationId,
    botUser,
    guild,
    channelId,
    commands(guildId) {
      return guildId ? (guildCommands.get(guildId) ?? []) : globalCommands;
    },
    identifies,
    resumeCount: () => resumes,

    waitForReady(timeoutMs = 10_000) {
      if (liveSession?.socket) return Promise.resolve();
      return waitWithTimeout('a gateway session to become ready', timeoutMs, (done) => {
        readyListeners.add(done);
        return () => readyListeners.delete(done);
      });
    },

    disconnectGateway(code = 4000) {
      const socket = liveSession?.socket;
      if (!liveSession || !socket) throw new Error('fake Discord: no live gateway session to disconnect');
      liveSession.socket = undefined;
      resumesAtLastDisconnect = resumes;
      socket.close(code, 'fake Discord: disconnected by the test');
    },

    waitForResume(timeoutMs = 10_000) {
      if (resumes > resumesAtLastDisconnect) return Promise.resolve();
      return waitWithTimeout('a RESUME', timeoutMs, (done) => {
        const check = (): void => {
          if (resumes > resumesAtLastDisconnect) done();
        };
        resumeListeners.add(check);
        return () => resumeListeners.delete(check);
      });
    },

    setRestFailure(matcher, response) {
      const sameMatcher = (rule: FailureRule): boolean =>
        rule.matcher.path.source === matcher.path.source && rule.matcher.path.flags === matcher.path.flags && (rule.matcher.method ?? '').toUpperCase() === (matcher.method ?? '').toUpperCase();
      failures = failures.filter((rule) => !sameMatcher(rule));
      if (response) failures.push({ matcher, response, remaining: response.times ?? Number.POSITIVE_INFINITY });
    },

    slashCommand(input) {
      return basePayload(2, input, commandData(input));
    },

    autocomplete(input) {
      return basePayload(4, input, commandData(input));
    },

    button(input) {
      const message = componentMessage(input.message);
      const data: Json = { custom_id: input.customId, component_type: input.componentType ?? 2 };
      if (input.values) data.values = input.values;
      if (input.resolved) data.resolved = input.resolved;
      return { ...basePayload(3, input, data), message };
    },

    userContextMenu(input) {
      const target = toApiUser(input.targetUser);
      return basePayload(2, input, {
        id: input.commandId ?? commandIdFor(input.name, 2),
        name: input.name,
        type: 2,
        target_id: target.id,
        resolved: resolvedUsers([target]),
      });
    },

    modalSubmit(input) {
      const payload = basePayload(5, input, { custom_id: input.customId, components: input.components });
      return input.message ? { ...payload, message: componentMessage(input.message) } : payload;
    },

    dispatchInteraction(payload) {
      if (!liveSession) throw new Error('fake Discord: no gateway session to dispatch on; wait for ready first');
      const state: InteractionState = { payload, responses: [], listeners: new Set(), acknowledged: false, followUps: new Set() };
      interactionsByToken.set(payload.token, state);
      const sentAt = process.hrtime.bigint();
      dispatchTo(liveSession, 'INTERACTION_CREATE', payload);
      return {
        id: payload.id,
        token: payload.token,
        payload,
        sentAt,
        responses: state.responses,
        waitForResponse(predicate = () => true, timeoutMs = 5000) {
          const found = (): RecordedResponse | undefined => state.responses.find(predicate);
          const already = found();
          if (already) return Promise.resolve(already);
          return waitWithTimeout(`a response to interaction ${payload.id}`, timeoutMs, (done) => {
            const check = (): void => {
              if (found()) done();
            };
            state.listeners.add(check);
            return () => state.listeners.delete(check);
          }).then(
            () => found() as RecordedResponse,
            (error: Error) => {
              throw new Error(`${error.message}; recorded so far: ${JSON.stringify(state.responses.map((r) => ({ kind: r.kind, callbackType: r.callbackType, body: r.body })))}`);
            },
          );
        },
        latestMessage() {
          const message = state.originalMessageId === undefined ? undefined : messages.get(state.originalMessageId);
          return message && structuredClone(message);
        },
      };
    },

    dispatchEvent(type, data) {
      if (!liveSession) throw new Error('fake Discord: no gateway session to dispatch on; wait for ready first');
      dispatchTo(liveSession, type, data);
    },

    createMessage(fields) {
      return structuredClone(newMessage(fields));
    },

    getMessage(id) {
      const message = messages.get(id);
      return message && structuredClone(message);
    },

    async close() {
      // 4004 is a close code discord.js does not recover from, so a client left running stays down.
      await Promise.all(
        [...sockets].map(
          (socket) =>
            new Promise<void>((resolve) => {
              const timer = setTimeout(() => socket.terminate(), 1000);
              socket.once('close', () => {
                clearTimeout(timer);
                resolve();
              });
              socket.close(4004, 'fake Discord closing');
            }),
        ),
      );
      wss.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
