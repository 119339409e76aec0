// Resolves `{user}` to the system it names and describes the viewer for the privacy rules.
import type { FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import { findSystemByUser } from '../../db/repositories/systems.js';
import type { Schema } from '../../db/tables.js';
import type { Viewer } from '../../domain/privacy.js';
import { Problem } from '../../domain/problems.js';
import type { SystemRecord } from '../../domain/system.js';

export interface Target {
  viewer: Viewer;
  system: SystemRecord;
}

export async function resolveTarget(db: Kysely<Schema>, request: FastifyRequest): Promise<Target> {
  const grant = request.grant;
  if (!grant) throw new Error('resolveTarget called on a route without authentication');
  const { user } = request.params as { user: string };
  const targetUserId = user === '@me' ? grant.userId : user;
  if (targetUserId === null) throw new Problem('user-token-required', '@me needs a token issued to a user');
  const system = await findSystemByUser(db, targetUserId);
  if (!system) {
    throw new Problem(
      'no-system',
      user === '@me' ? 'you have no system yet; sign in to the service once to create it' : 'this user has no system (they have never signed in)',
    );
  }
  let viewerSystemId: number | null = null;
  if (grant.userId === targetUserId) viewerSystemId = system.id;
  else if (grant.userId !== null) viewerSystemId = (await findSystemByUser(db, grant.userId))?.id ?? null;
  return { viewer: { userId: grant.userId, clientId: grant.clientId, systemId: viewerSystemId }, system };
}
