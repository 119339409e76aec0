// One privacy setting for many alters at once (POST …/system/edit-alters-privacy): the body, and
// the reasons it is one write. A member who hides or shows a selection of alters means all of them
// or none: alter by alter, a failure halfway would leave some shown that they meant to hide.
import { z } from 'zod';
import { ALTER_FIELDS, MAX_ALTERS_PER_SYSTEM } from './alter.js';
import { EntityId } from './values.js';

export const EditAltersPrivacyBody = z
  .strictObject({
    alterIds: z
      .array(EntityId)
      .min(1, 'must name at least one alter')
      .max(MAX_ALTERS_PER_SYSTEM, `must have at most ${MAX_ALTERS_PER_SYSTEM} alters`)
      .refine((ids) => new Set(ids).size === ids.length, 'must not repeat an alter')
      .describe('The alters to change, every one of the system (404 `unknown-alter` naming the first that is not, and nothing changes).'),
    // The very validator of an alter's own `public`: the bulk write accepts exactly what one edit does.
    public: ALTER_FIELDS.settings.public.input.describe(
      'The privacy bitmask every named alter gets, as an edit’s `public` sets it: 0 shows nothing of them to anyone else, all bits (2047) everything; see the privacy section of the API reference.',
    ),
  })
  .meta({ id: 'EditAltersPrivacyBody' });
export type EditAltersPrivacyInput = z.infer<typeof EditAltersPrivacyBody>;
