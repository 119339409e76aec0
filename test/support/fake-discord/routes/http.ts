// What every REST route shares: the parts of the fake they act on, reading bodies, the bot's token.
import type { IncomingMessage } from 'node:http';
import type { Commands } from '../commands.js';
import type { Gateway } from '../gateway.js';
import type { GuildModel } from '../guild.js';
import type { Interactions } from '../interactions.js';
import type { Messages } from '../messages.js';
import type { OtherBots } from '../other-bots.js';
import type { Permissions } from '../permissions.js';
import { HttpError } from '../refusals.js';
import type { FakeState } from '../state.js';
import type { Json, RecordedFile } from '../types.js';
import type { Webhooks } from '../webhooks.js';

/** The fake's parts, as the routes see them. */
export interface Parts {
  state: FakeState;
  gateway: Gateway;
  guildModel: GuildModel;
  permissions: Permissions;
  msgs: Messages;
  webhooks: Webhooks;
  commands: Commands;
  interactions: Interactions;
  otherBots: OtherBots;
}

async function readForm(raw: Buffer, contentType: string): Promise<{ json: Json; files: RecordedFile[] }> {
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
}

// A body is read once per request: the request checks read it before the route does.
const bodies = new WeakMap<IncomingMessage, Promise<{ json: Json; files: RecordedFile[] }>>();

/** A JSON or multipart body (`payload_json` and `files[n]`); invalid JSON is refused as Discord does. */
export function readBody(req: IncomingMessage, raw: Buffer): Promise<{ json: Json; files: RecordedFile[] }> {
  let body = bodies.get(req);
  if (!body) {
    body = parseBody(req, raw);
    bodies.set(req, body);
  }
  return body;
}

async function parseBody(req: IncomingMessage, raw: Buffer): Promise<{ json: Json; files: RecordedFile[] }> {
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
}

export function requireBotToken(req: IncomingMessage, botToken: string): void {
  if (req.headers.authorization !== `Bot ${botToken}`) throw new HttpError(401, { message: '401: Unauthorized', code: 0 });
}
