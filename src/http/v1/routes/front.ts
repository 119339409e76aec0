// The front: switch (one alter, several, or nobody), read who is fronting, and page the history.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Kysely } from 'kysely';
import { z } from 'zod';
import { findAlters } from '../../../db/repositories/alters.js';
import { frontStatsInParts, frontStatsOf } from '../../../db/repositories/front-days.js';
import { alterBitsForStats, currentSwitch, deleteSwitch, editSwitch, newestSwitchByClient, recordSwitch, switchHistory } from '../../../db/repositories/switches.js';
import { findTag } from '../../../db/repositories/tags.js';
import type { Schema } from '../../../db/tables.js';
import type { Alter } from '../../../domain/alter.js';
import { DEFAULT_STATS_DAYS, FrontStats, FrontStatsQuery, MAX_STATS_PARTS, statsBoundaries, statsPeriod } from '../../../domain/front-stats.js';
import {
  DEFAULT_FRONT_HISTORY_PAGE,
  DeleteSwitchResponse,
  EditSwitchBody,
  EditSwitchResponse,
  Front,
  FrontHistory,
  MAX_ALTERS_PER_SWITCH,
  MAX_FRONT_HISTORY_PAGE,
  PushFrontBody,
  PushFrontResponse,
  requestedAlters,
  type SwitchRecord,
} from '../../../domain/front.js';
import { alterExistsFor, alterLoadPolicy, isOwner, readsAlters, seesFrontSources, tagLoadPolicy, viewAlter, viewSwitch, viewTag, type AlterLoadPolicy, type Viewer } from '../../../domain/privacy.js';
import { Problem } from '../../../domain/problems.js';
import type { SystemRecord } from '../../../domain/system.js';
import { EntityIdString } from '../../../domain/values.js';
import { NoQuery, UserParams, UserRef, pageQuery } from '../params.js';
import { errorResponses, security } from '../route-schema.js';
import { actorOf, targetOf } from '../target.js';

const HistoryQuery = pageQuery(MAX_FRONT_HISTORY_PAGE, DEFAULT_FRONT_HISTORY_PAGE).extend({
  before: EntityIdString.optional().describe('A switch id: only switches older than it (the `next` of the previous page).'),
});

const SwitchParams = z.strictObject({ user: UserRef, switch: EntityIdString.describe('The switch id (`switchId` in the history).') });

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
      const change = { clientId: viewer.clientId, accountId: viewer.userId, alterIds: requestedAlters(request.body), switchedAt };
      const recorded = await recordSwitch(db, system.id, change, (index) =>
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

  app.post(
    '/front/switches/:switch/edit',
    {
      config: { scope: 'system:ai-ap', writes: true },
      schema: {
        tags: ['Front'],
        summary: 'Edit a switch (an addition to the origin API)',
        description: [
          'Changes a switch of your system: `alters` (as `POST /front` takes them: in order, the primary first; `[]` makes it a switch-out) and `timestamp` (never in the future), each optional; omitted keys stay as they are. The switch keeps the app that made it.',
          'The history stays ordered by time: a new `timestamp` moves the switch to its place in time, also past its neighbours (it then follows the switch before its new time and comes before the one after).',
          'No switch repeats the front before it (the rule `POST /front` applies): an edit that would make this switch repeat the one before it, or make the one after it (or its own app’s next switch) repeat this one, at its old place or its new one, is refused with 409 `same-front` and changes nothing.',
          'Owner only, in one transaction; a switch of another system is 404 `unknown-switch`, an alter that is not yours 404 `unknown-alter`. Sends `switch.updated`.',
        ].join('\n\n'),
        security: security('system:ai-ap'),
        params: SwitchParams,
        querystring: NoQuery,
        body: EditSwitchBody,
        response: { 200: EditSwitchResponse, ...errorResponses(404, 409, 413, 415) },
      },
    },
    async (request) => {
      const { viewer, system } = targetOf(request);
      const switchedAt = request.body.timestamp === undefined ? undefined : Date.parse(request.body.timestamp);
      if (switchedAt !== undefined && switchedAt > Date.now()) throw new Problem('validation', 'timestamp: must not be in the future', 'timestamp');
      const edited = await editSwitch(
        db,
        system.id,
        request.params.switch,
        { ...(request.body.alters === undefined ? {} : { alterIds: request.body.alters }), ...(switchedAt === undefined ? {} : { switchedAt }) },
        actorOf(viewer),
        (index) => `alters.${index}`,
      );
      return { data: viewSwitch(edited, new Set(edited.alterIds), system, viewer) };
    },
  );

  app.post(
    '/front/switches/:switch/delete',
    {
      config: { scope: 'system:ai-ap', writes: true },
      schema: {
        tags: ['Front'],
        summary: 'Delete a switch (an addition to the origin API)',
        description:
          'Deletes a switch of your system (owner only, one transaction; 404 `unknown-switch` otherwise). No two consecutive switches are the same: when the switch after it would then repeat the one before it (a switch between two identical ones), that later twin is deleted too and named in `alsoDeleted`. Sends `switch.deleted` for each switch deleted.',
        security: security('system:ai-ap'),
        params: SwitchParams,
        querystring: NoQuery,
        body: z.strictObject({}),
        response: { 200: DeleteSwitchResponse, ...errorResponses(404, 413, 415) },
      },
    },
    async (request) => {
      const { viewer, system } = targetOf(request);
      const { alsoDeleted } = await deleteSwitch(db, system.id, request.params.switch, actorOf(viewer));
      return { deleted: true as const, alsoDeleted };
    },
  );

  app.get(
    '/front/stats',
    {
      config: { scope: 'system:read' },
      schema: {
        tags: ['Front'],
        summary: 'Front statistics (an addition to the origin API)',
        description: [
          'Per alter: time fronting in the period (`seconds`), its `share` of the period (0 to 1), `switches` that brought it into the front and `lastFronted` (the last instant in the period when it fronted; `to` if it still does then). Co-fronting counts for each co-fronter; `primary=true` counts only the primary fronter. `nobody`: the time no one fronted. Only alters with time in the period are listed, longest first.',
          `The period: \`from\` and \`to\` (ISO times) default to the last ${DEFAULT_STATS_DAYS} days; a \`to\` later than now counts as now; reversed or longer than 5 years is 400. It starts no earlier than the system’s first switch (the answer’s \`from\`).`,
          '`tag=<tag id>` lists only the tag’s members, and `nobody` is then the time none of them fronted (another user’s tag must show its members: 403 `tags-private` otherwise, 404 `unknown-tag` when it is hidden from you).',
          `\`boundaries\` (comma-separated ISO times, ascending, strictly inside the period, at most ${MAX_STATS_PARTS - 1}) also answers the period part by part in \`parts\` (n instants, n + 1 parts), each exactly what a call for that part alone answers, in one request: days, weeks or months in the caller’s own time zone, since the caller chooses the instants. A bad list is a 400 and nothing else is read.`,
          'Another user’s statistics follow the rule of `GET /front/history`: refused (403 `alters-private`) unless their system shows its alters; the alters hidden from you are one row with `alterId: null` (the time any of them fronted; its `switches` and `lastFronted` null), never named.',
        ].join('\n\n'),
        security: security('system:read'),
        params: UserParams,
        querystring: FrontStatsQuery,
        response: { 200: z.strictObject({ data: FrontStats }), ...errorResponses(404) },
      },
    },
    async (request) => {
      const { viewer, system } = targetOf(request);
      frontPolicy(system, viewer);
      const { from, to } = statsPeriod(request.query, Date.now());
      const askedTo = request.query.to === undefined ? to : Date.parse(request.query.to);
      const boundaries = request.query.boundaries === undefined ? undefined : statsBoundaries(request.query.boundaries, { from, to }, askedTo);
      let members: Set<number> | undefined;
      if (request.query.tag !== undefined) {
        const policy = tagLoadPolicy(system, viewer);
        const record = policy && (await findTag(db, system.id, request.query.tag, policy));
        const view = record && viewTag(record, system, viewer);
        if (!view) throw new Problem('unknown-tag', 'this system has no such tag that you may see', 'tag');
        if (view.redacted.includes('alterIds')) throw new Problem('tags-private', 'this tag does not show its members', 'tag');
        members = new Set(view.alterIds);
      }
      let shown: (alterId: number) => boolean = () => true;
      if (!isOwner(viewer, system.id)) {
        const bits = new Map((await alterBitsForStats(db, system.id)).map((alter) => [alter.id, alter.public]));
        shown = (alterId) => alterExistsFor(bits.get(alterId) ?? 0, system, viewer);
      }
      const filter = { primary: request.query.primary === 'true', ...(members ? { members } : {}), shown };
      return { data: boundaries ? await frontStatsInParts(db, system.id, from, to, boundaries, filter) : await frontStatsOf(db, system.id, from, to, filter) };
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
