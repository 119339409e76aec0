// The front as a list of switches. A switch names the alters fronting from its time on, in order
// (the first is the primary fronter, whom "front" autoproxy speaks as); an empty switch is a
// switch-out (nobody fronting). The system's current front is its newest switch, whichever app made
// it; each app's own newest switch stays readable, because an autoproxy entry may follow one app's
// pushes (the origin's AI/AP mode).
import { z } from 'zod';
import { Alter } from './alter.js';
import { EntityId, EntityIdString, IsoDateTime } from './values.js';

/** PluralKit's limit on the members of one switch. */
export const MAX_ALTERS_PER_SWITCH = 150;
export const MAX_FRONT_HISTORY_PAGE = 100;
export const DEFAULT_FRONT_HISTORY_PAGE = 20;

/** A name where an id belongs is the common mistake: say what is expected and where ids are found. */
const ALTER_ID_EXPECTED =
  'must be an alter id such as "12", not a name or username: GET /v1/users/@me/system/list-alters lists your alters with their ids (alterId), and the bot shows “Alter 12” at the foot of each profile';
const AlterRef = z.union([EntityIdString, EntityId], { error: ALTER_ID_EXPECTED });

export const PushFrontBody = z
  .strictObject({
    alter: AlterRef.optional().describe('One alter id, as a string (the origin’s form) or a number: a switch of that alter alone.'),
    alters: z
      .array(AlterRef)
      .max(MAX_ALTERS_PER_SWITCH, `must have at most ${MAX_ALTERS_PER_SWITCH} alters`)
      .optional()
      .describe(`The alters fronting from now on, in order, the primary fronter first (ids as strings or numbers; at most ${MAX_ALTERS_PER_SWITCH}, no repeats). \`[]\` switches out: nobody is fronting.`),
    timestamp: IsoDateTime.optional().describe('When the switch happened, to record one late (default: now). Never in the future.'),
  })
  .superRefine((body, context) => {
    if ((body.alter === undefined) === (body.alters === undefined)) {
      context.addIssue({ code: 'custom', path: ['alters'], message: 'give either alter (one alter) or alters (a list), not both and not neither' });
    }
    refuseRepeats(body.alters, context);
  });
export type PushFrontBody = z.infer<typeof PushFrontBody>;

/** The repeats in a list of alters, each as an issue naming its place. */
function refuseRepeats(alters: readonly number[] | undefined, context: z.RefinementCtx): void {
  const seen = new Set<number>();
  alters?.forEach((id, index) => {
    if (seen.has(id)) context.addIssue({ code: 'custom', path: ['alters', index], message: 'names an alter already in the list' });
    seen.add(id);
  });
}

export const EditSwitchBody = z
  .strictObject({
    alters: z
      .array(AlterRef)
      .max(MAX_ALTERS_PER_SWITCH, `must have at most ${MAX_ALTERS_PER_SWITCH} alters`)
      .optional()
      .describe(`The alters fronting from this switch on, as \`POST /front\` takes them: in order, the primary fronter first, at most ${MAX_ALTERS_PER_SWITCH}, no repeats; \`[]\` makes it a switch-out. Omitted: unchanged.`),
    timestamp: IsoDateTime.optional().describe('When the switch happened (never in the future). The switch takes its place in time, also past its neighbours. Omitted: unchanged.'),
  })
  .superRefine((body, context) => refuseRepeats(body.alters, context));
export type EditSwitchBody = z.infer<typeof EditSwitchBody>;

/**
 * Whether a switch repeats the front before it, the rule `POST /front` applies and the history
 * keeps: the same alters in the same order as the switch in effect before it and as its own app's
 * switch in effect then (an app may repeat the system's front to move its own). Nothing before a
 * switch counts as nobody fronting.
 */
export function repeatsFront(alterIds: readonly number[], inEffect: readonly number[] | undefined, ownInEffect: readonly number[] | undefined): boolean {
  return sameAlters(inEffect ?? [], alterIds) && sameAlters(ownInEffect ?? [], alterIds);
}

/** The switch a push body asks for: its alters in order. */
export function requestedAlters(body: PushFrontBody): number[] {
  return body.alters ?? (body.alter === undefined ? [] : [body.alter]);
}

export const Switch = z
  .strictObject({
    switchId: z.number().int(),
    switchedAt: IsoDateTime,
    alterIds: z
      .array(z.number().int())
      .describe('The alters fronting from then on, the primary fronter first; details in the answer’s `alters`. Empty: nobody (a switch-out) or, for other users, only alters hidden from them.'),
    clientId: z.string().nullable().describe('The app that made the switch; null for other users (which apps someone uses is theirs to know).'),
    clientName: z.string().nullable(),
  })
  .meta({ id: 'Switch' });
export type Switch = z.infer<typeof Switch>;

export const Front = z
  .strictObject({
    current: Switch.nullable().describe('The newest switch, whichever app made it: who is fronting now. Null before the first switch.'),
    byApp: z.array(Switch).describe('Each app’s own newest switch, newest first (what an autoproxy entry following that app speaks as). The owner’s alone: empty for others.'),
    alters: z.array(Alter).describe('Each alter these switches name, once, in the order first named, as you may see it; empty without the `alters:read` scope (the switches name them by id).'),
    redacted: z.array(z.string()).describe('What is hidden from you: `byApp` for other users, `alters` without the `alters:read` scope.'),
  })
  .meta({ id: 'Front' });
export type Front = z.infer<typeof Front>;

export const FrontHistory = z
  .strictObject({
    switches: z.array(Switch).describe('Newest first (by `switchedAt`, then by `switchId`).'),
    alters: z.array(Alter).describe('Each alter these switches name, once, in the order first named, as you may see it; empty without the `alters:read` scope (the switches name them by id).'),
    next: z.number().int().nullable().describe('The `before` that asks for the next, older page; null on the last page.'),
    redacted: z.array(z.string()).describe('What is hidden from you: `alters` without the `alters:read` scope.'),
  })
  .meta({ id: 'FrontHistory' });
export type FrontHistory = z.infer<typeof FrontHistory>;

export const PushFrontResponse = z.strictObject({
  success: z.literal(true),
  data: Switch.describe('The switch recorded.'),
});

export const EditSwitchResponse = z.strictObject({ data: Switch.describe('The switch as it is now.') });

export const DeleteSwitchResponse = z.strictObject({
  deleted: z.literal(true),
  alsoDeleted: z
    .array(z.number().int())
    .describe('Switches removed with it because, without it, they repeated the switch before them (no two consecutive switches are the same): the later twin. Usually empty.'),
});

/** A stored switch, before privacy. */
export interface SwitchRecord {
  id: number;
  systemId: number;
  clientId: string;
  clientName: string | null;
  switchedAt: number;
  /** Position order: the primary first. */
  alterIds: number[];
}

/** Whether two switches name the same alters in the same order (the primary fronter matters to autoproxy). */
export function sameAlters(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((id, index) => id === b[index]);
}
