// The front: switch (one alter, several, or nobody), read who is fronting, and page the history.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Kysely } from 'kysely';
import { z } from 'zod';
import { findAlters } from '../../../db/repositories/alters.js';
import { currentSwitch, newestSwitchByClient, recordSwitch, switchHistory } from '../../../db/repositories/switches.js';
import type { Schema } from '../../../db/tables.js';
import type { Alter } from '../../../domain/alter.js';
import {
  DEFAULT_FRONT_HISTORY_PAGE,
  Front,
  FrontHistory,
  MAX_ALTERS_PER_SWITCH,
  MAX_FRONT_HISTORY_PAGE,
  PushFrontBody,
  PushFrontResponse,
  requestedAlters,
  type SwitchRecord,
} from '../../../domain/front.js';
import { alterExistsFor, alterLoadPolicy, readsAlters, seesFrontSources, viewAlter, viewSwitch, type AlterLoadPolicy, type Viewer } from '../../../domain/privacy.js';
import { Problem } from '../../../domain/problems.js';
import type { SystemRecord } from '../../../domain/system.js';
import { EntityIdString } from '../../../domain/values.js';
import { NoQuery, UserParams, pageQuery } from '../params.js';
import { errorResponses, security } from '../route-schema.js';
import { targetOf } from '../target.js';

const HistoryQuery = pageQuery(MAX_FRONT_HISTORY_PAGE, DEFAULT_FRONT_HISTORY_PAGE).extend({
  before: EntityIdString.optional().describe('A switch id: only switches older than it (the `next` of the previous page).'),
});

const PRIVACY = 'Another user’s front follows their privacy: refused (403 `alters-private`) unless their system shows its alters; alters hidden from you are left out of each switch (a switch of hidden alters only looks like a switch-out), and which app made a switch is the owner’s alone.';

export const frontRoutes: FastifyPluginAsyncZod<{ db: Kysely<Schema> }> = async (app, { db }) => {
  app.post(
    '/front',
    {
      config: { scope: 'system:ai-ap', writes: true },
      schema: {
        tags: ['Front'],
        summary: 'Switch who is fronting',
        description: [
          'Records a switch made by the calling app: `{"alter": id}` (the origin’s form: that alter alone) or `{"alters": [ids]}` (in order, the primary fronter first, whom `front` autoproxy speaks as; `[]` switches out).',
          `At most ${MAX_ALTERS_PER_SWITCH} alters, each once and each of your system (404 \`unknown-alter\` naming it otherwise).`,
          '`timestamp` records a switch that happened earlier (never in the future); the history is ordered by time, so a late switch takes its place there and becomes the current front only if nothing newer exists.',
          'The switch becomes the system’s current front, whichever app made it, and the calling app’s own newest switch. A switch that would change nothing (the same alters in the same order as both the front in effect at its time and your app’s own front then) is refused with 409 `same-front`; order counts, because the primary fronter does.',
        ].join('\n\n'),
        security: security('system:ai-ap'),
        params: UserParams,
        querystring: NoQuery,
        body: PushFrontBody,
        response: { 200: PushFrontResponse, ...errorResponses(404, 409, 413, 415) },
      },
    },
    async (request) => {
      const { viewer, system } = targetOf(request);
      // Without a timestamp the switch happens when it is recorded, under the system's lock.
      const switchedAt = request.body.timestamp === undefined ? undefined : Date.parse(request.body.timestamp);
      if (switchedAt !== undefined && switchedAt > Date.now()) throw new Problem('validation', 'timestamp: must not be in the future', 'timestamp');
      const single = request.body.alters === undefined;
      const recorded = await recordSwitch(db, system.id, { clientId: viewer.clientId, alterIds: requestedAlters(request.body), switchedAt }, (index) =>
        single ? 'alter' : `alters.${index}`,
      );
      return { success: true as const, data: viewSwitch(recorded, new Set(recorded.alterIds), system, viewer) };
    },
  );

  app.get(
    '/front',
    {
      config: { scope: 'system:read' },
      schema: {
        tags: ['Front'],
        summary: 'Who is fronting (an addition to the origin API)',
        description: `\`current\`: the system’s newest switch, whichever app made it. \`byApp\`: each app’s own newest switch (the owner’s alone). Switches name alters by id; \`alters\` holds each of them once. ${PRIVACY}`,
        security: security('system:read'),
        params: UserParams,
        querystring: NoQuery,
        response: { 200: z.strictObject({ data: Front }), ...errorResponses(404) },
      },
    },
    async (request) => {
      const { viewer, system } = targetOf(request);
      const policy = frontPolicy(system, viewer);
      const sources = seesFrontSources(system, viewer);
      const byApp = sources ? await newestSwitchByClient(db, system.id) : [];
      const current = sources ? byApp[0] : await currentSwitch(db, system.id);
      const records = current ? [current, ...byApp.slice(1)] : [];
      const { alters, shown } = await altersOf(db, records, system, viewer, policy);
      return {
        data: {
          current: current ? viewSwitch(current, shown, system, viewer) : null,
          byApp: byApp.map((record) => viewSwitch(record, shown, system, viewer)),
          alters,
          redacted: [...(sources ? [] : ['byApp']), ...altersRedacted(viewer)],
        },
      };
    },
  );

  app.get(
    '/front/history',
    {
      config: { scope: 'system:read' },
      schema: {
        tags: ['Front'],
        summary: 'The switch history (an addition to the origin API)',
        description: `Every switch, newest first. Page with \`max\` (1..${MAX_FRONT_HISTORY_PAGE}, default ${DEFAULT_FRONT_HISTORY_PAGE}) and either \`before\` (a switch id; each page’s \`next\`: stable while switches are added) or \`skip\`. ${PRIVACY} Every switch counts in paging, shown with the alters you may see.`,
        security: security('system:read'),
        params: UserParams,
        querystring: HistoryQuery,
        response: { 200: z.strictObject({ data: FrontHistory }), ...errorResponses(404) },
      },
    },
    async (request) => {
      const { viewer, system } = targetOf(request);
      const policy = frontPolicy(system, viewer);
      const { max = DEFAULT_FRONT_HISTORY_PAGE, skip = 0, before } = request.query;
      const page = await switchHistory(db, system.id, { max, skip, ...(before === undefined ? {} : { before }) });
      if (!page) throw new Problem('validation', 'before: names no switch of this system', 'before');
      const { alters, shown } = await altersOf(db, page.switches, system, viewer, policy);
      const last = page.switches.at(-1);
      return {
        data: {
          switches: page.switches.map((record) => viewSwitch(record, shown, system, viewer)),
          alters,
          next: page.more && last ? last.id : null,
          redacted: altersRedacted(viewer),
        },
      };
    },
  );
};

function frontPolicy(system: SystemRecord, viewer: Viewer): AlterLoadPolicy {
  const policy = alterLoadPolicy(system, viewer);
  if (!policy) throw new Problem('alters-private', 'this system does not show its alters, so its front is private');
  return policy;
}

/** `alters` left out of the answer: the token may not read alter records (issue: system:read is not alters:read). */
function altersRedacted(viewer: Viewer): string[] {
  return readsAlters(viewer) ? [] : ['alters'];
}

/**
 * The alters the switches name, once each in the order first named, as the viewer may see them
 * (none without `alters:read`), and the ids of those that exist for the viewer, which the switches
 * name whatever the scopes.
 */
async function altersOf(
  db: Kysely<Schema>,
  records: SwitchRecord[],
  system: SystemRecord,
  viewer: Viewer,
  policy: AlterLoadPolicy,
): Promise<{ alters: Alter[]; shown: Set<number> }> {
  const named = [...new Set(records.flatMap((record) => record.alterIds))];
  const found = new Map((await findAlters(db, system.id, named, policy)).map((record) => [record.id, record]));
  const alters: Alter[] = [];
  const shown = new Set<number>();
  for (const id of named) {
    const record = found.get(id);
    if (!record || !alterExistsFor(record.public, system, viewer)) continue;
    shown.add(id);
    const view = viewAlter(record, system, viewer);
    if (view) alters.push(view);
  }
  return { alters, shown };
}
