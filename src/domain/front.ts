// The front: which alter each integration last pushed, and the history of pushes. Each client
// keeps its own record (as in the origin), so two integrations never overwrite each other.
import { z } from 'zod';
import { Alter } from './alter.js';
import { EntityId, EntityIdString, IsoDateTime } from './values.js';

export const PushFrontBody = z.strictObject({
  alter: z.union([EntityIdString, EntityId]).describe('The alter id, as a string (the origin’s form) or a number.'),
});

export const FrontEntry = z
  .strictObject({
    alterId: z.number().int(),
    clientId: z.string().nullable().describe('The integration that pushed this alter to the front; null for other viewers (which apps someone uses is theirs to know).'),
    clientName: z.string().nullable(),
    pushedAt: IsoDateTime,
    alter: Alter,
  })
  .meta({ id: 'FrontEntry' });
export type FrontEntry = z.infer<typeof FrontEntry>;

export interface FrontRecord {
  id: number;
  systemId: number;
  alterId: number;
  clientId: string;
  clientName: string | null;
  pushedAt: number;
}

export const MAX_FRONT_HISTORY_PAGE = 100;
