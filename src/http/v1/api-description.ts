// The long-form part of the API reference: how to start, and the decisions taken where the
// specification says "not shown", in the words an integrator reads at /docs. Keep it true when
// behaviour changes.
import { EVENT_SCOPES, EVENT_TYPES } from '../../domain/events.js';
import { DESCRIPTION_MAX, NAME_MAX } from '../../domain/values.js';
import { gettingStarted } from './getting-started.js';

/** The reference's description for the installation at `issuer` (its PUBLIC_URL). */
export function apiDescription(issuer: string): string {
  return `${INTRODUCTION}${gettingStarted(issuer)}${API_DESCRIPTION}`;
}

/**
 * Which scope each kind of event needs, from EVENT_SCOPES (the rule the dispatcher applies):
 * "alter and tag events `alters:read`; system and switch events `system:read`; …".
 */
function eventScopesText(): string {
  const nounsByScope = new Map<string, string[]>();
  for (const type of EVENT_TYPES) {
    const noun = type.split('.')[0] ?? type;
    const nouns = nounsByScope.get(EVENT_SCOPES[type]) ?? [];
    if (!nouns.includes(noun)) nouns.push(noun);
    nounsByScope.set(EVENT_SCOPES[type], nouns);
  }
  return [...nounsByScope]
    .map(([scope, nouns]) => `${nouns.length > 1 ? `${nouns.slice(0, -1).join(', ')} and ${nouns.at(-1)}` : nouns[0]} events \`${scope}\``)
    .join('; ');
}

const INTRODUCTION = `
The data API of switchboard: a plural system's profile, its alters, who is fronting, autoproxy and
proxied messages, for the Discord user who owns them. Every \`/v1/users/{user}/…\` path takes a
Discord user id or \`@me\` (the user the access token was issued to). A system may have several
Discord accounts (its \`subAccounts\`, beside the owning \`associatedUserId\`): the id of any of
them, and \`@me\` from a token of any of them, is that system. Requests and responses are JSON.

This API keeps the wire format of **PluralBuddy**'s API (an open-source Discord bot for plural
systems, called "the origin" below), so clients written for it work here unchanged; what it left
open, and what this service adds, is written down in the sections below.
`;

const API_DESCRIPTION = `
## Response shapes
PluralBuddy's shapes are kept as they were, for compatibility, so they are not uniform: the two
reads it wrapped stay wrapped (\`GET /system\` answers \`{data: System}\`, \`GET /alters/{alter}\`
answers \`{isSelf, data: Alter}\`), and its other answers are bare (create and edit answer the
Alter or System itself, \`list-alters\` an array of Alter, \`fields/alters/{id}\` an Alter,
\`POST /front\` \`{success}\`). Endpoints this service adds follow the wrapped form for what they
return (\`{data: …}\`: \`GET /front\`, \`/autoproxy\`, \`/messages\`, \`/v1/messages/{message}\`),
except the proxy profile, which is bare so that its \`ETag\` describes exactly the body, and the
small status answers (\`{removed}\`, \`{applied, revision}\`). Each operation below shows its exact
schema.

## Authentication
Send \`Authorization: Bearer <access token>\`. Tokens in the query string are refused. Each operation
needs the scope listed with it. Missing or malformed tokens get 401 with \`WWW-Authenticate: Bearer\`;
expired or revoked tokens 401 with \`error="invalid_token"\`; a missing scope 403 with
\`error="insufficient_scope"\`. Writes need \`{user}\` to be \`@me\` or the id of an account of the token's
own system (403 \`not-matching-oauth\` otherwise). A client-credentials token (no user) may read other users' public
data by id, and nothing else.

## Errors
Every error has the body \`{"errors": [{"type", "friendly", "field"?}]}\`: \`type\` is stable and
machine-readable, \`friendly\` is for people, \`field\` names the offending field or parameter.
Validation reports every problem at once.

| type | status | when |
|---|---|---|
| no-access-token | 401 | no Authorization header |
| invalid-auth | 401 | malformed header; expired, revoked or unknown token |
| token-in-query | 400 | \`access_token\` in the URL |
| invalid-scopes | 403 | the token lacks the operation's scope |
| not-matching-oauth | 403 | writing to another user; reading another user's fields, autoproxy or proxy profile |
| user-token-required | 403 | \`@me\`, a write or \`/apps\` with a client-credentials token |
| validation | 400 | a body field, path or query parameter is invalid or unknown |
| read-only-field | 400 | the body sets a field the service owns (alterId, created, …) |
| max-too-high | 400 | \`max\` above the page limit |
| invalid-json | 400 | the body is not JSON |
| unsupported-media-type | 415 | a body that is not \`application/json\` |
| body-too-large | 413 | a body over 256 KiB (32 MiB for an import) |
| not-found | 404 | no such endpoint |
| no-system | 404 | the user has never signed in, so has no system |
| unknown-alter | 404 | no such alter in that system, or hidden from you (also an alter named in a body) |
| unknown-tag | 404 | no such tag in that system, or hidden from you; \`tagIds\` names a tag the system does not have |
| unknown-switch | 404 | no such switch in that system (\`/front/switches/{switch}/edit\`, \`/delete\`) |
| unknown-message | 404 | no proxied message has this id |
| alters-private | 403 | listing (or reading the front of) a system that hides its alters |
| tags-private | 403 | listing the tags of a system that hides its tags |
| duplicate | 409 | the username or tag name is taken in this system (ignoring case and look-alike forms); a different record already names this message |
| duplicate-field | 409 | another alter already has this integration field value |
| too-many-alters | 409 | the system has 2000 alters, or an import would pass that |
| too-many-tags | 409 | the system has 500 tags, or an import would pass that |
| too-many-entries | 409 | the system has 1000 autoproxy entries; an import has over 100,000 switches |
| system-too-large | 409 | a create, edit or import would grow the system's alters past 16 Mi characters of text in all (names, per-server maps, descriptions, links, proxy tags); writes that shrink them always pass |
| same-front | 409 | a switch that would change nothing: these alters already front, in this order |
| invalid-import | 422 | the import body is JSON but not an export we read (or nothing in it is usable, or it is not UTF-8) |
| idempotency-key-reused | 409 | an import's Idempotency-Key was used for another file or options |
| cross-site-request | 403 | the dashboard refused a state change from another site, or without its CSRF token (only under /dashboard/api/) |
| rate-limited | 429 | too many requests; see \`Retry-After\` |
| client-token-required | 403 | \`/v1/events\` with a user's token: endpoints belong to the app |
| first-party-only | 403 | recording or moving a proxied-message record, from any client but the bot's own (first-party) one |
| unknown-endpoint | 404 | your client has no such event endpoint |
| invalid-account-code | 422 | the account code is not a code, unknown, used or past its 10 minutes |
| account-has-system | 409 | the joining account's own system holds alters, tags or switches (send \`discardOwnSystem: true\`), it belongs to another system already, or others joined the system it owns |
| unknown-account | 404 | the account to remove is not an account of this system |
| owner-account | 409 | removing the owning account (delete the system instead) |
| unknown-app | 404 | revoking an app the account has not authorized (\`/apps/{client}/revoke\`) |
| calling-app | 409 | an app revoking itself through \`/apps/{client}/revoke\` (revoke its own token instead) |
| unknown-delivery | 404 | your client has no such delivery |

## Decisions where the origin API left gaps
- **Status codes**: create answers 201, everything else 200.
- **Create**: \`username\` (1–${NAME_MAX} characters, no whitespace, \`@\`, \`\\\`, \`/\`, nor look-alikes of them,
  nor invisible characters such as zero-width spaces or bidirectional controls) and \`displayName\`
  (1–${NAME_MAX}) are required; every other editable field may be given. Usernames are unique per system
  ignoring case and look-alike forms (Unicode NFKC case folding: \`ß\` = \`SS\`, \`Ａ\` = \`A\`, a
  composed \`é\` = a decomposed one; \`İ\` and \`I\` stay apart, as do Latin and Cyrillic letters),
  enforced by a unique index: of concurrent creates with one name exactly one succeeds. At most 2000
  alters per system.
- **Edit** (alters and the system): partial. An omitted key is unchanged; \`null\` clears a nullable
  field (null for a required field is a validation error); unknown and read-only keys are refused;
  \`{}\` or an empty body changes nothing.
- **Integration fields**: \`fields\` is keyed by OAuth client id. A client writes only its own key
  (\`{"fields": {"<your client id>": "value"}}\`, up to 150 characters, null removes it) and reads only
  its own key, and only on the owner's reads. A value is unique per system and client.
- **Field shapes**: \`proxyTags\` are \`{id, prefix, suffix}\` (one of prefix/suffix non-empty; \`id\` is
  generated when omitted); \`alterMode\` is \`webhook\` (default), \`nickname\` or \`both\`; \`nameMap\` is
  \`[{server, name}]\`; \`avatarUrlMap\` and \`displayTagMap\` are objects keyed by Discord server id;
  colors are \`#rrggbb\`; image fields are absolute http(s) URLs, stored percent-encoded as Discord accepts them
  (\`my pic.png\` → \`my%20pic.png\`; no user name or password; at most 2,048 characters once encoded); \`latchExpiration\` is in **milliseconds**
  (0 to 36,000,000; 0 never expires; a new system starts at 21,600,000, six hours, as PluralKit; systems made
  before keep theirs). Alter \`birthday\` is \`YYYY-MM-DD\` or \`--MM-DD\` without a year (\`--02-29\` is valid; only
  real dates); alter \`autoproxyEnabled\` (default true) false leaves the alter out of \`front\` and \`latch\`
  autoproxy (PluralKit's per-member autoproxy off) while its proxy tags and \`alter\` mode entries still send as
  it (owner-only). System \`systemColor\` is \`#rrggbb\` (shown with the avatar bit 8); \`systemTimezone\` is an IANA
  name (\`Europe/Berlin\`) checked against the runtime's tzdb, null meaning UTC, the owner's alone: it is what the
  bot's times and periods mean, while the API takes absolute times. \`systemAutoproxy\` is read-only here: it changes through \`/autoproxy\`.
  System \`flags\`: 1 keep proxy tags in the sent text, 2 append pronouns to the proxied name, 4 proxy tags
  ignore case (off by default: tags match case, as on PluralKit).
- **Ids**: \`alterId\` is a safe integer that is never reused. \`systemId\` is the system's id as a string.
- **Listing**: ordered by \`alterId\`; \`max\` 1–250 (default 250), \`skip\` ≥ 0 (default 0); anything else
  is a 400 naming the parameter.
- **Deletes** are POSTs (\`POST /alters/{alter}/delete\`, \`POST /tags/{tag}/delete\`, with an empty body), like
  every other write of this API (\`/system/edit\`, \`/autoproxy/remove\`), and answer \`{"deleted": true}\`;
  a second delete is 404. Deleting an alter removes, in the same transaction, its tag memberships,
  integration fields and place in the front's switches; an autoproxy entry in \`alter\` mode for it turns
  \`off\` (so the bot never starts speaking as someone else in that scope) and a latch on it is cleared,
  both as owner changes (the entry's \`revision\` moves on). Its proxied-message records stay: message
  info still names the system, and tells the owner \`alterDeleted: true\`. Ids are never reused.
- **Tags** (PluralKit's groups; \`POST /system/create-tag\`, \`GET /tags/{tag}\`, \`GET /system/list-tags\`,
  \`POST /tags/{tag}/edit\`, \`POST /tags/{tag}/alters\`, \`POST /tags/{tag}/delete\`): \`name\` (1–${NAME_MAX}
  characters, trimmed, any text; unique per system ignoring case and look-alike forms, as usernames),
  \`displayName\` (≤ ${NAME_MAX}), \`description\` (≤ ${DESCRIPTION_MAX}), \`color\` (\`#rrggbb\`), \`icon\` (an http(s) URL),
  \`public\` (privacy bits, below). At most 500 per system. Members change from either end: an alter's
  \`tagIds\` (its whole list), or \`POST /tags/{tag}/alters {"add": [ids], "remove": [ids]}\` (one
  transaction; every id must be an alter of the system or nothing changes). Deleting a tag removes it from
  every alter in the same transaction. Tags use the alters scopes (\`alters:read\`, \`alters:write\`): a new
  scope would make every linked app ask its users again. Lists page like list-alters, by \`tagId\`.
- **Front** (co-fronting): \`POST /front\` takes the origin's \`{"alter": "<id>"}\` (a number is accepted
  too) or \`{"alters": [ids]}\`: the alters fronting from now on, in order, the first the primary fronter
  (whom \`front\` autoproxy speaks as); \`[]\` switches out. At most 150 alters, each once. Every switch is
  kept: the system's current front is its newest switch, whichever app made it, and each app's own
  newest switch stays readable (autoproxy may follow one app, the origin's AI/AP mode). A switch that
  changes nothing (the same alters in the same order as the front and as your app's own front) is 409
  \`same-front\`. \`timestamp\` records a switch late (never in the future); the history is ordered by
  time. \`GET /front\` (an addition) answers \`{current, byApp, alters, redacted}\`, \`GET /front/history\`
  pages the switches newest first (\`max\`, \`before\` = the previous page's \`next\`, or \`skip\`). Switches
  name alters by id; each answer's \`alters\` holds each named alter once.
  \`POST /front/switches/{switch}/edit\` (\`{alters?, timestamp?}\`) and \`/delete\` fix the history (owner only,
  \`system:ai-ap\`): it stays ordered by time and no switch repeats the one before it. An edit may move a
  switch past its neighbours (it takes its place in time); one that would leave a repeat is 409
  \`same-front\`. A delete that leaves two identical switches in a row also deletes the later one
  (\`alsoDeleted\`). \`GET /front/stats\` answers each alter's time, share, entries and last time in a
  period (default the last 30 days, at most 5 years), for others as their history allows.

## Proxying
The bot re-sends a member's tagged message as an alter through a webhook. Its proxy engine decides
(tags, autoproxy, latch, escapes); the service holds what the engine and the webhook need:
- **Autoproxy entries** (\`GET/POST /autoproxy\`, \`POST /autoproxy/remove\`; owner only): one per
  scope label, \`@global\`, \`<server>\` or \`<server>/<channel>\` (in a thread or forum post, its parent
  channel). The most specific entry present is in effect, even in \`off\` mode. Modes: \`off\`,
  \`alter\` (with \`autoproxyAlter\`), \`latch\` (the last alter proxied in that scope; it expires after
  the system's \`latchExpiration\`, 0 never), \`front\` (the primary fronter of the newest switch,
  whichever app made it), or an integration's client id (the origin's form: the primary of that
  app's own newest switch). A client id that no longer pushes leaves nobody to speak as, and still shadows broader
  entries. Each entry has a \`revision\` that the owner's edits move on.
- **Engine state changes** (\`POST /autoproxy/state\`, scope \`messages:write\`): the latch set or cleared,
  an entry turned off by \`\\\\\\\`. Conditional, never an error: \`applied\` is false when the entry's
  revision moved (the owner changed it since the bot read it), its mode no longer fits, or its latch
  is newer than the decision's \`at\` (a late write never moves a latch back in time).
- **The proxy profile** (\`GET /proxy-profile?guild=\`, scope \`messages:write\`, owner only): alters with
  their proxy tags and their name and avatar for that server (per-server entries first), the
  display tag, flags, whether proxying is off there, the autoproxy entries that can apply there
  and the primary fronters they follow. Its \`ETag\` carries the system's revision, which every write that
  changes the profile moves on in its own transaction; \`If-None-Match\` gets 304.
- **Proxied messages** (\`POST /messages\`, scope \`messages:write\`, first-party clients only): the bot
  records each message it sent, with the original's id, channel, server, alter and the name it was
  sent under; the sender is the token's Discord
  account and the time comes from the message id. One transaction also counts it on the alter
  (\`messageCount\`, \`lastMessageTimestamp\`) and applies the engine's state change. Idempotent: the
  same record again answers 200 and counts nothing; a different record for either id is 409.
- **Message info** (\`GET /v1/messages/{id}\`, scope \`messages:read\`, any token including a
  client-credentials one): by the proxied or the original message's id. The sending Discord
  account and the name the message was sent under are always shown, so moderators can act whatever
  the privacy settings; the system (name, display tag, avatar, pronouns) and the alter follow their
  privacy for the viewer, and the token's scopes: the system with \`system:read\`, the alter record
  with \`alters:read\` (otherwise \`alterId\` alone, and \`redacted\` says what was left out). Records
  hold ids only, never text; operators set their retention (\`MESSAGE_RETENTION_DAYS\`, 0 forever).
- **Server settings** (\`GET /v1/guilds/{guild}/settings\`, \`POST /v1/guilds/{guild}/settings/edit\`,
  scope \`guilds:manage\`): what a Discord server's admins set for the bot (log channel, blacklist, blocks,
  required display tag, manager roles, proxy delay, log cleanup), each setting and list entry with who
  changed it last and when. Only the bot's own first-party client can be granted the scope, and only its
  client-credentials token may use it: the bot checks the member's Discord permission and names them and
  what it checked (\`actor\`) in the edit, and both go to the audit log. The \`ETag\` carries the settings'
  revision, which the proxy profile also tells (\`Switchboard-Guild-Settings-Revision\`, on 200 and 304).

## Events
Instead of polling, an app registers webhook endpoints (\`/v1/events/endpoints\`, a client-credentials
token with \`events:manage\`) and chooses event types: \`alter.created\`, \`alter.updated\`,
\`alter.deleted\`, \`system.updated\`, \`tag.created\`, \`tag.updated\`, \`tag.deleted\`,
\`switch.created\`, \`switch.updated\`, \`switch.deleted\`, \`message.proxied\`, \`system.deleted\`. Events come only for users who have authorized the app, and
only those its grant's scopes read (${eventScopesText()}), with what the app would read through the API: the
owner's view, with only its own integration field. Revoking the app stops them at once. A system's
deletion ends every grant of its users; its \`system.deleted\` event still goes to the apps whose grant
was live until then (the one event that does), so they can forget what they kept. The app also
receives events of its own changes (\`data.actor.self\`). Requests follow Standard Webhooks
(\`webhook-id\`, \`webhook-timestamp\`, \`webhook-signature: v1,<base64 HMAC-SHA256 of "id.timestamp.body">\`
keyed with the base64-decoded part of the \`whsec_\` secret); the body is \`{type, timestamp, data}\`.
Any 2xx is success; anything else (a redirect included) is retried with exponential backoff for a day,
in order per system (\`data.sequence\`); the delivery log and replays are under the endpoint.

## Privacy
A system's and each alter's \`public\` is a bitmask; a set bit shows that part to other users.
Alter: 1 visible at all, 2 display name, 4 description, 8 banner, 16 pronouns, 32 avatar and color,
64 proxy tags (an addition: the origin left 64 unused, and a tag like \`alpha:\` names its alter), 128 tags,
256 message count and last message time, 512 username, 1024 birthday (its own bit, private by default as
PluralKit's). System: 1 name, 2 display tag, 4 description, 8 avatar and \`systemColor\`, 16 banner, 32 pronouns, 64 alters (list them, read them, see the front),
128 tags, 256 \`subAccounts\` (the system's other Discord accounts; private by default, as it ties identities together). Tag: 1 visible at all, 2 name and display name, 4 description, 8 icon, 16 color, 32 member list.
The default, 0, is private.

For other viewers, hidden fields are \`null\` (lists and maps empty) and named in \`redacted\` (an
addition: the origin sent \`{"redacted": true}\` in place of the value, which broke typed clients).
An alter is visible to others only when its system shows alters (64) **and** the alter has bit 1;
otherwise it is absent from lists and 404 on direct reads. A tag is visible to others only when its
system shows tags (128) **and** the tag has bit 1 (absent from lists and the system's \`tagIds\`, 404
otherwise). That an alter is in a tag is shown only where both ends agree: the system shows alters and
tags (64, 128), the alter is visible and shows its tags (1, 128), and the tag is visible and shows its
members (1, 32); an alter's \`tagIds\` and a tag's \`alterIds\` are those pairs seen from either end.
Message info's \`alterDeleted\` is the owner's to know (others get \`null\` whenever \`alter\` is null, so a
deleted alter and a hidden one look alike). Per-server maps, integration fields, an
alter's \`flags\`, the system's settings and which apps made a switch (\`clientId\`,
\`clientName\` of switches, and \`byApp\`) are the owner's alone. In another user's front, alters hidden
from you are left out of each switch: a switch of hidden alters only looks like a switch-out. \`isSelf\` on single reads says whether you are the owner (true for every account of the system).

## Accounts of a system
The owning account (\`associatedUserId\`) makes a one-time code with \`POST /system/accounts/code\`
(\`{data: {code, expiresAt}}\`: 10 characters, valid 10 minutes and once). Another Discord account
redeems it with its own token: \`POST /v1/users/@me/system/accounts/redeem\` \`{code}\`. Its own
system is deleted in the same transaction when empty; when it holds alters, tags or switches the
redeem needs \`discardOwnSystem: true\` (else 409 \`account-has-system\`). From then on the account is
the system for every read and write, with its own tokens and apps; events name the acting account
(\`actor.accountId\`), and apps any account authorized receive them. The owning account removes
another account, and an account removes itself, with \`POST /system/accounts/{account}/remove\`: its
grants end at once and it gets a new, empty system. Details: docs/accounts.md in the repository.

## Import and export
\`POST /system/import\` takes a PluralKit, Tupperbox or Simply Plural export as the body (any JSON media
type, read as UTF-8, up to 32 MiB) and answers \`{"data": ImportReport}\`: the format, per kind how many
were created, updated, unchanged and deleted, \`renames\`, \`skipped\` (by id and name in the file),
\`warnings\` and \`notImported\` (what the file holds that was left out, by kind). Simply Plural files
take \`customFronts=import|skip\` and \`friendsArePublic=true|false\` (everything is private by default). \`dryRun=true\` previews with the same report and writes nothing; an applied import is
one transaction. Modes \`merge\` (default), \`add\`, \`replace\`; front history with \`history=true\`.
It needs both \`alters:write\` and \`system:write\`. Send an \`Idempotency-Key\` to make a retried
import (a double-clicked Confirm) answer the first report instead of importing twice.
\`GET /system/export\` (both \`system:read\` and \`alters:read\`, owner only) answers a PluralKit v2 file
with this service's own fields under \`switchboard\`, which the import reads back losslessly.

## Rate limits
Per access token (600 requests per minute by default) and per client IP (1200 per minute), on
every response: \`X-RateLimit-Limit\`, \`X-RateLimit-Remaining\`, \`X-RateLimit-Reset\` (seconds).
Over the limit: 429 \`rate-limited\` with \`Retry-After\`. Operators can change or disable them.
`;
