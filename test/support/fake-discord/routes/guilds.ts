// /guilds/{id}: the guild, its channels, roles, active threads, members (and changing a member's
// nickname or roles, refused as Discord refuses it) and webhooks.
import type { IncomingMessage } from 'node:http';
import { Permission, isThread } from '../constants.js';
import { HttpError, invalidForm, missingPermissions } from '../refusals.js';
import type { RouteResult } from '../types.js';
import { readBody, requireBotToken, type Parts } from './http.js';

export function createGuildRoutes(parts: Parts) {
  const { state, guildModel, permissions, webhooks: hooks } = parts;
  const { guild, botUser, channels, roles, members, webhooks } = state;
  const { putMember, guildObject } = guildModel;
  const { permissionsIn, requirePermission, highestRole, requireOutranks } = permissions;
  const { webhookJson, ownWebhook } = hooks;
  const requireBot = (req: IncomingMessage): void => requireBotToken(req, state.botToken);

  const guildRoute = async (req: IncomingMessage, segments: string[], raw: Buffer): Promise<RouteResult> => {
    requireBot(req);
    const method = req.method ?? 'GET';
    const [, id, third, fourth] = segments;
    if (id !== guild.id) throw new HttpError(404, { message: 'Unknown Guild', code: 10004 });
    if (method === 'PATCH' && third === 'members' && fourth !== undefined && segments.length === 4) {
      const self = fourth === '@me' || fourth === botUser.id;
      const target = members.get(self ? botUser.id : fourth);
      if (!target) throw new HttpError(404, { message: 'Unknown Member', code: 10007 });
      const { json } = await readBody(req, raw);
      const granted = permissionsIn('guild');
      if (json.nick !== undefined) {
        if (self ? (granted & (Permission.ChangeNickname | Permission.ManageNicknames)) === 0n : (granted & Permission.ManageNicknames) === 0n)
          throw missingPermissions();
        if (!self) requireOutranks(target.user.id);
        if (typeof json.nick === 'string' && json.nick.length > 32) throw invalidForm('nick', 'BASE_TYPE_BAD_LENGTH', 'Must be between 1 and 32 in length.');
      }
      if (Array.isArray(json.roles)) {
        requirePermission('guild', Permission.ManageRoles);
        if (!self) requireOutranks(target.user.id);
        if ((json.roles as string[]).some((roleId) => (roles.get(roleId)?.position ?? Number.POSITIVE_INFINITY) >= highestRole(botUser.id)))
          throw missingPermissions();
      }
      const nick = json.nick === undefined ? target.nick : typeof json.nick === 'string' && json.nick !== '' ? json.nick : null;
      const updated = putMember({ user: target.user, nick, ...(Array.isArray(json.roles) ? { roles: json.roles as string[] } : {}) });
      return { status: 200, body: updated };
    }
    if (method !== 'GET') return undefined;
    if (third === undefined) return { status: 200, body: guildObject() };
    if (third === 'channels' && fourth === undefined) return { status: 200, body: [...channels.values()].filter((c) => !isThread(c)) };
    if (third === 'roles' && fourth === undefined) return { status: 200, body: [...roles.values()] };
    if (third === 'threads' && fourth === 'active') return { status: 200, body: { threads: [...channels.values()].filter((c) => isThread(c)), members: [] } };
    if (third === 'members' && fourth !== undefined) {
      const member = members.get(fourth === '@me' ? botUser.id : fourth);
      if (!member) throw new HttpError(404, { message: 'Unknown Member', code: 10007 });
      return { status: 200, body: member };
    }
    if (third === 'webhooks' && fourth === undefined) {
      requirePermission('guild', Permission.ManageWebhooks);
      return { status: 200, body: [...webhooks.values()].map((w) => webhookJson(w, ownWebhook(w))) };
    }
    return undefined;
  };

  return { guildRoute };
}
