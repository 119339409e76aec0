// The front: push an alter (per integration, with history) and read who is fronting.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Kysely } from 'kysely';
import { z } from 'zod';
import { findAlters } from '../../../db/repositories/alters.js';
import { currentFront, frontHistory, pushFront } from '../../../db/repositories/switches.js';
import type { Schema } from '../../../db/tables.js';
import { FrontEntry, MAX_FRONT_HISTORY_PAGE, PushFrontBody, type FrontRecord } from '../../../domain/front.js';
import { alterLoadPolicy, viewAlter, viewFrontSource, type AlterLoadPolicy, type Viewer } from '../../../domain/privacy.js';
import { Problem } from '../../../domain/problems.js';
import type { SystemRecord } from '../../../domain/system.js';
import { NoQuery, UserParams, pageQuery } from '../params.js';
import { errorResponses, security } from '../route-schema.js';
import { resolveTarget } from '../target.js';

const DEFAULT_HISTORY_PAGE = 20;

export const frontRoutes: FastifyPluginAsyncZod<{ db: Kysely<Schema> }> = async (app, { db }) => {
  app.post(
    '/front',
    {
      config: { scope: 'system:ai-ap', writes: true },
      schema: {
        tags: ['Front'],
        summary: 'Push an alter to the front',
        description: 'Records that the calling integration put this alter at the front, now. Every push is kept as history; each integration has its own current record.',
        security: security('system:ai-ap'),
        params: UserParams,
        querystring: NoQuery,
        body: PushFrontBody,
        response: { 200: z.strictObject({ success: z.boolean() }), ...errorResponses(404, 413, 415) },
      },
    },
    async (request) => {
      const { viewer, system } = await resolveTarget(db, request);
      const pushed = await pushFront(db, system.id, request.body.alter, viewer.clientId, Date.now());
      if (!pushed) throw new Problem('unknown-alter', 'your system has no such alter', 'alter');
      return { success: true };
    },
  );

  app.get(
    '/front',
    {
      config: { scope: 'system:read' },
      schema: {
        tags: ['Front'],
        summary: 'Who is fronting (an addition to the origin API)',
        description: `\`current\`: the newest push of each integration, newest first. \`history\`: every push, newest first, paged with \`max\` (1..${MAX_FRONT_HISTORY_PAGE}, default ${DEFAULT_HISTORY_PAGE}) and \`skip\`. Another user’s front follows their privacy: refused unless their system shows its alters, and hidden alters are left out.`,
        security: security('system:read'),
        params: UserParams,
        querystring: pageQuery(MAX_FRONT_HISTORY_PAGE, DEFAULT_HISTORY_PAGE),
        response: { 200: z.strictObject({ data: z.strictObject({ current: z.array(FrontEntry), history: z.array(FrontEntry) }) }), ...errorResponses(404) },
      },
    },
    async (request) => {
      const { viewer, system } = await resolveTarget(db, request);
      const policy = alterLoadPolicy(system, viewer);
      if (!policy) throw new Problem('alters-private', 'this system does not show its alters, so its front is private');
      const page = { skip: request.query.skip ?? 0, max: request.query.max ?? DEFAULT_HISTORY_PAGE };
      const [current, history] = await Promise.all([
        currentFront(db, system.id, policy.onlyVisible),
        frontHistory(db, system.id, page, policy.onlyVisible),
      ]);
      const toEntries = (records: FrontRecord[]) => describeEntries(db, records, system, viewer, policy);
      return { data: { current: await toEntries(current), history: await toEntries(history) } };
    },
  );
};

/** Attaches each record's alter, as the viewer may see it; records of unseen alters are dropped. */
async function describeEntries(
  db: Kysely<Schema>,
  records: FrontRecord[],
  system: SystemRecord,
  viewer: Viewer,
  policy: AlterLoadPolicy,
): Promise<FrontEntry[]> {
  const found = await findAlters(db, system.id, [...new Set(records.map((record) => record.alterId))], policy);
  const alters = new Map(found.map((record) => [record.id, viewAlter(record, system, viewer)]));
  return records.flatMap((record) => {
    const alter = alters.get(record.alterId);
    if (!alter) return [];
    return [{ alterId: record.alterId, ...viewFrontSource(record, system, viewer), pushedAt: new Date(record.pushedAt).toISOString(), alter }];
  });
}
