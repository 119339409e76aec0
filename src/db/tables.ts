// Row types of every table, as Kysely sees them. Timestamps are epoch milliseconds and booleans
// are 0/1 integers in both dialects, so one set of queries serves SQLite and PostgreSQL alike;
// JSON-shaped columns are text, parsed by the repositories.
import type { Generated, Insertable, Selectable, Updateable } from 'kysely';

export interface UsersTable {
  id: string;
  username: string | null;
  created_at: number;
  last_sign_in_at: number | null;
}

export interface SystemsTable {
  id: Generated<number>;
  user_id: string;
  name: string;
  display_tag: string | null;
  display_tag_map: Generated<string>;
  description: string | null;
  avatar: string | null;
  banner: string | null;
  pronouns: string | null;
  /** Migration 2026-11-27T21k: `#RRGGBB`, shown with the avatar. */
  color: string | null;
  nickname_format: Generated<string>;
  operation_dm: Generated<number>;
  latch_expiration: Generated<number>;
  /** Migration 2026-11-27T21k: an IANA time zone name; null means UTC. */
  timezone: string | null;
  public: Generated<number>;
  flags: Generated<number>;
  disabled_guilds: Generated<string>;
  disabled: Generated<number>;
  created_at: number;
  /** Bumped by every write that changes the proxy profile (its ETag). */
  revision: Generated<number>;
  /** The sequence number of the system's last event (appendEvent). */
  event_seq: Generated<number>;
  /** How many alters the system has: kept by triggers on `alters` (migration 2026-11-27T00). */
  alter_count: Generated<number>;
  /** The characters of the system's alters' text and JSON columns, kept by triggers (migration 2026-11-27T10). */
  alter_chars: Generated<number>;
}

export interface SystemSubAccountsTable {
  user_id: string;
  system_id: number;
}

/** One-time codes for another account to join a system (migration 2026-11-28T00). */
export interface SystemAccountCodesTable {
  /** StorageCrypto.lookupHash('account-code', code): never the code itself. */
  code_hash: string;
  system_id: number;
  /** The owning account that made it. */
  created_by: string;
  created_at: number;
  expires_at: number;
}

export interface AltersTable {
  id: Generated<number>;
  system_id: number;
  username: string;
  /** usernameKey(username) (src/domain/username-key.ts); unique per system. Written with every username. */
  username_key: string;
  display_name: string;
  name_map: Generated<string>;
  color: string | null;
  description: string | null;
  pronouns: string | null;
  /** Migration 2026-11-27T21k: `YYYY-MM-DD` or `--MM-DD`. */
  birthday: string | null;
  avatar_url: string | null;
  avatar_url_map: Generated<string>;
  webhook_avatar_url: string | null;
  banner: string | null;
  alter_mode: Generated<string>;
  proxy_tags: Generated<string>;
  /** Migration 2026-11-27T21k: 0 leaves the alter out of `front` and `latch` autoproxy. */
  autoproxy_enabled: Generated<number>;
  public: Generated<number>;
  flags: Generated<number>;
  message_count: Generated<number>;
  last_message_at: number | null;
  created_at: number;
}

export interface TagsTable {
  id: Generated<number>;
  system_id: number;
  name: string;
  /** usernameKey(name): tag names are unique per system the way usernames are. */
  name_key: string;
  display_name: string | null;
  description: string | null;
  color: string | null;
  icon: string | null;
  public: Generated<number>;
  created_at: number;
}

export interface AlterTagsTable {
  alter_id: number;
  tag_id: number;
}

export interface AlterFieldsTable {
  alter_id: number;
  client_id: string;
  system_id: number;
  value: string;
}

/** Migration 2026-11-28T00: a system's custom profile field definitions. */
export interface ProfileFieldsTable {
  id: Generated<number>;
  system_id: number;
  name: string;
  /** usernameKey(name): unique per system, as tag names. */
  name_key: string;
  /** A PROFILE_FIELD_KINDS name (domain/profile-fields.ts). */
  kind: string;
  /** A PROFILE_FIELD_PRIVACY name. */
  privacy: Generated<string>;
  position: number;
  created_at: number;
}

/** Migration 2026-11-28T00: an alter's value of a profile field. */
export interface ProfileFieldValuesTable {
  alter_id: number;
  field_id: number;
  system_id: number;
  value: string;
}

export interface AutoproxyTable {
  system_id: number;
  scope: string;
  /** '' for every account of the system; else the one account the entry is for (migration 2026-11-28T01). */
  account_id: Generated<string>;
  mode: string;
  alter_id: number | null;
  last_latch_at: number | null;
  /** Bumped by the owner's edits; engine state changes apply only to the revision they saw. */
  revision: Generated<number>;
}

export interface ProxiedMessagesTable {
  /** The webhook message's id (Discord snowflakes exceed 2^53: text). */
  message_id: string;
  /** The member's deleted message. */
  original_id: string;
  channel_id: string;
  guild_id: string;
  system_id: number;
  /** No foreign key: records of a deleted alter keep its id as a tombstone. */
  alter_id: number;
  sender_id: string;
  created_at: number;
  /** The webhook's name the message was sent under; null for records made before it was kept. */
  proxied_name: string | null;
}

/** One switch: from `switched_at` on, its members front (none: nobody does). */
export interface SwitchesTable {
  id: Generated<number>;
  system_id: number;
  /** The OAuth client that made the switch (the bot's own for /front). */
  client_id: string;
  switched_at: number;
  /**
   * Its alters' ids in position order, comma-separated ('' for a switch-out): kept from
   * switch_members by triggers (migration 2026-11-27T20l), for front statistics. Written only
   * by an import, with the switch, as the triggers make it (they then rewrite nothing).
   */
  alter_list: Generated<string>;
}

/**
 * The per-day (UTC) summary of a system's front, for front statistics (domain/front-days.ts):
 * per run of days and list of alters (`alter_list`'s form), the closed time it fronted and the
 * last instant it did. Written only by settleFrontDays (repositories/front-days.ts).
 */
export interface FrontDaysTable {
  system_id: number;
  /** How many days the row sums (FRONT_DAY_SPANS: 1, 4, 16, 64, 256 or 1024), from `day`, a multiple of it. */
  span: number;
  /** Days since 1970-01-01 (UTC). */
  day: number;
  alter_list: string;
  ms: number;
  last_at: number;
}

/** Per run of days and alter: the switches that brought it into the front, and into the primary place. */
export interface FrontDayEntriesTable {
  system_id: number;
  span: number;
  day: number;
  alter_id: number;
  entries: number;
  primary_entries: number;
}

/**
 * Systems whose summary is behind their switches: the span of switch times changed since it was
 * last brought up to date, marked by triggers on `switches` and `switch_members` (every writer,
 * cascades included). Statistics of a system listed here are read from its switches alone.
 */
export interface FrontDaysStaleTable {
  system_id: number;
  lo: number;
  hi: number;
}

export interface SwitchMembersTable {
  switch_id: number;
  alter_id: number;
  /** 0 is the primary fronter. */
  position: number;
}

/** Where an imported alter came from (issue 12): a re-import of the same source updates it. */
export interface ImportAlterLinksTable {
  system_id: number;
  /** 'pluralkit' or 'tupperbox'. */
  source: string;
  /** The source system's id ('' where the source has none, as Tupperbox). */
  source_system_id: string;
  /** PluralKit member short id, Tupperbox tupper id. */
  source_entity_id: string;
  source_uuid: string | null;
  alter_id: number;
}

/** Where an imported tag came from: a PluralKit, Tupperbox or Simply Plural group. */
export interface ImportTagLinksTable {
  system_id: number;
  source: string;
  source_system_id: string;
  source_entity_id: string;
  source_uuid: string | null;
  tag_id: number;
  /** The source id of the group this one was nested in (Simply Plural; null at the top or where the source is flat). */
  source_parent_id: string | null;
}

/** The report of an applied import sent with an Idempotency-Key: a retry answers it again. */
export interface AppliedImportsTable {
  system_id: number;
  idempotency_key: string;
  /** SHA-256 of the body and options: the same key with another request is refused. */
  request_hash: string;
  /** The ImportReport as JSON. */
  report: string;
  created_at: number;
}

export interface OauthClientsTable {
  id: string;
  name: string;
  /** SHA-256 of the secret; null for public clients. */
  secret_hash: string | null;
  redirect_uris: string;
  grant_types: string;
  scopes: string;
  first_party: number;
  created_at: number;
  secret_rotated_at: number | null;
}

export interface OidcPayloadsTable {
  /** HMAC of model and id: the raw id is a bearer credential and is never stored. */
  id_hash: string;
  model: string;
  /** AES-256-GCM sealed JSON. */
  payload: string;
  grant_id: string | null;
  uid_hash: string | null;
  user_code_hash: string | null;
  account_id: string | null;
  client_id: string | null;
  expires_at: number | null;
  consumed_at: number | null;
}

export interface LoginLinksTable {
  token_hash: string;
  user_id: string;
  client_id: string;
  return_to: string;
  created_at: number;
  expires_at: number;
  consumed_at: number | null;
}

export interface BrowserSessionsTable {
  id_hash: string;
  user_id: string;
  signed_in_at: number;
  expires_at: number;
}

export interface DashboardSessionsTable {
  id_hash: string;
  /** Null while the sign-in is under way. */
  user_id: string | null;
  /** Sealed JSON: the pending sign-in, or the session's tokens (src/dashboard/sessions.ts). */
  sealed: string;
  created_at: number;
  expires_at: number;
  /** Until when one process holds the right to refresh the session's tokens (ms since the epoch). */
  refresh_lease_until: number | null;
}

export interface AuditLogTable {
  id: Generated<number>;
  /** Epoch milliseconds. */
  at: number;
  kind: string;
  user_id: string | null;
  client_id: string | null;
  ip: string | null;
  /** JSON object (src/domain/audit.ts AuditDetails); never a secret or a token. */
  details: string | null;
}

/** A server's settings (src/domain/guild.ts); servers without a row have the defaults at revision 0. */
export interface GuildSettingsTable {
  guild_id: string;
  /** Moved by every change, in its transaction. */
  revision: number;
  /** JSON: GuildSettingsDocument. */
  settings: string;
  /** Epoch milliseconds. */
  updated_at: number;
}

/** The outbox: one row per change, written in the change's transaction. */
export interface EventsTable {
  id: Generated<number>;
  system_id: number;
  /** 1, 2, 3… per system, in the order of the changes. */
  seq: number;
  type: string;
  /** The OAuth client whose request made the change; null for the service itself. */
  actor_client_id: string | null;
  /** The Discord account whose token made the change (migration 2026-11-28T00); null for the service itself and older events. */
  actor_account_id: string | null;
  /** JSON: the owner's view of what changed, as of the change. */
  payload: string;
  created_at: number;
  fanned_out_at: number | null;
}

export interface EventEndpointsTable {
  id: string;
  client_id: string;
  url: string;
  /** JSON array of event types. */
  event_types: string;
  description: string | null;
  enabled: Generated<number>;
  /** The `whsec_` secret, sealed with the endpoint id as context. */
  secret_sealed: string;
  /** After a rotation, the old secret keeps signing (beside the new one) until it expires. */
  previous_secret_sealed: string | null;
  previous_secret_expires_at: number | null;
  created_at: number;
  updated_at: number;
}

export interface EventDeliveriesTable {
  id: Generated<number>;
  event_id: number;
  endpoint_id: string;
  system_id: number;
  /** pending, delivered, failed (gave up), skipped (the user no longer authorizes the client, or a scope is missing). */
  status: string;
  attempts: Generated<number>;
  /** When the current run of attempts began (creation, or the last replay): retries stop a day later. */
  queued_at: number;
  next_attempt_at: number;
  /** A dispatcher process holds the delivery until then. */
  lease_until: number | null;
  last_status_code: number | null;
  last_error: string | null;
  finished_at: number | null;
  created_at: number;
}

export interface EventAttemptsTable {
  id: Generated<number>;
  delivery_id: number;
  attempted_at: number;
  duration_ms: number;
  status_code: number | null;
  error: string | null;
}

/** When an app could see a user's events: a grant's life, one row per set of scopes (migration 2026-11-27T10). */
export interface EventGrantPeriodsTable {
  id: Generated<number>;
  grant_id: string;
  account_id: string;
  client_id: string;
  /** ' scope scope … ' (space-padded); null for a grant older than the table, until it is read. */
  scopes: string | null;
  started_at: number;
  /** Revoked, signed out of, or its scopes changed (a new row follows). */
  ended_at: number | null;
  /** The grant's expiry (moved as the grant slides). */
  expires_at: number | null;
  /** For a grant whose tokens end with the browser session (no offline_access): that session's expiry. */
  session_expires_at: number | null;
}

/** A large value of event snapshots, stored once by the hash of its JSON (migration 2026-11-27T11). */
export interface EventValuesTable {
  hash: string;
  /** JSON. */
  value: string;
}

export interface EventValueRefsTable {
  event_id: number;
  hash: string;
}

/** Hosted images (routes/images.ts): processed bytes under their address, one row per system and image. */
export interface ImagesTable {
  address: string;
  system_id: number;
  purpose: string;
  content_type: string;
  width: number;
  height: number;
  bytes: number;
  /** Buffer on both dialects (SQLite blob, PostgreSQL bytea). */
  data: Buffer;
  created_at: number;
  /** When the purge last found something referring to the image (created_at until then). */
  checked_at: number;
}

export interface Schema {
  users: UsersTable;
  systems: SystemsTable;
  system_sub_accounts: SystemSubAccountsTable;
  system_account_codes: SystemAccountCodesTable;
  alters: AltersTable;
  tags: TagsTable;
  alter_tags: AlterTagsTable;
  alter_fields: AlterFieldsTable;
  profile_fields: ProfileFieldsTable;
  profile_field_values: ProfileFieldValuesTable;
  autoproxy: AutoproxyTable;
  switches: SwitchesTable;
  switch_members: SwitchMembersTable;
  front_days: FrontDaysTable;
  front_day_entries: FrontDayEntriesTable;
  front_days_stale: FrontDaysStaleTable;
  import_alter_links: ImportAlterLinksTable;
  import_tag_links: ImportTagLinksTable;
  applied_imports: AppliedImportsTable;
  proxied_messages: ProxiedMessagesTable;
  oauth_clients: OauthClientsTable;
  oidc_payloads: OidcPayloadsTable;
  login_links: LoginLinksTable;
  browser_sessions: BrowserSessionsTable;
  dashboard_sessions: DashboardSessionsTable;
  audit_log: AuditLogTable;
  events: EventsTable;
  event_endpoints: EventEndpointsTable;
  event_deliveries: EventDeliveriesTable;
  event_attempts: EventAttemptsTable;
  guild_settings: GuildSettingsTable;
  event_grant_periods: EventGrantPeriodsTable;
  event_values: EventValuesTable;
  event_value_refs: EventValueRefsTable;
  images: ImagesTable;
}

export type UserRow = Selectable<UsersTable>;
export type SystemRow = Selectable<SystemsTable>;
export type NewSystem = Insertable<SystemsTable>;
export type SystemUpdate = Updateable<SystemsTable>;
export type AlterRow = Selectable<AltersTable>;
export type NewAlter = Insertable<AltersTable>;
export type AlterUpdate = Updateable<AltersTable>;
export type TagRow = Selectable<TagsTable>;
export type NewTag = Insertable<TagsTable>;
export type TagUpdate = Updateable<TagsTable>;
export type ProfileFieldRow = Selectable<ProfileFieldsTable>;
export type ProfileFieldUpdate = Updateable<ProfileFieldsTable>;
export type OauthClientRow = Selectable<OauthClientsTable>;
export type OidcPayloadRow = Selectable<OidcPayloadsTable>;
export type LoginLinkRow = Selectable<LoginLinksTable>;
