// /applications/{app}[/guilds/{g}]/commands[/{id}][/permissions]: registering application commands
// (PUT replaces, POST upserts by name and type) and reading their permissions, which a bot may not set.
import type { IncomingMessage } from 'node:http';
import { HttpError } from '../refusals.js';
import type { Json, RouteResult } from '../types.js';
import { readBody, requireBotToken, type Parts } from './http.js';

export function createCommandRoutes(parts: Parts) {
  const { state, commands } = parts;
  const { guild, applicationId, snowflake } = state;
  const { storeCommands, commandListFor, commandPermissions, commandPermissionsJson } = commands;
  const requireBot = (req: IncomingMessage): void => requireBotToken(req, state.botToken);

  /** Command permissions under /applications/{app}/guilds/{guild}/commands[/{id}]/permissions. */
  const commandPermissionsRoute = (req: IncomingMessage, guildId: string | undefined, commandId: string | undefined): RouteResult => {
    const method = req.method ?? 'GET';
    if (method === 'PUT') {
      // Only a person's Bearer token with applications.commands.permissions.update may set them.
      if ((req.headers.authorization ?? '').startsWith('Bot ')) throw new HttpError(403, { message: 'Bots cannot use this endpoint', code: 20001 });
      throw new HttpError(401, { message: '401: Unauthorized', code: 0 });
    }
    requireBot(req);
    if (guildId !== guild.id) throw new HttpError(403, { message: 'Missing Access', code: 50001 });
    if (method !== 'GET') return undefined;
    if (commandId === undefined) return { status: 200, body: [...commandPermissions.keys()].map(commandPermissionsJson) };
    if (!commandPermissions.has(commandId)) throw new HttpError(404, { message: 'Unknown application command permissions', code: 10066 });
    return { status: 200, body: commandPermissionsJson(commandId) };
  };

  /** The application's command routes; undefined for any other path. */
  const applicationRoute = async (req: IncomingMessage, segments: string[], raw: Buffer): Promise<RouteResult> => {
    const method = req.method ?? 'GET';
    const [first, second, third, fourth, fifth, sixth, seventh] = segments;
    if (first === 'applications' && second === applicationId && third === 'guilds' && fifth === 'commands' && (sixth === 'permissions' || seventh === 'permissions')) {
      return commandPermissionsRoute(req, fourth, sixth === 'permissions' ? undefined : sixth);
    }
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
    return undefined;
  };

  return { applicationRoute };
}
