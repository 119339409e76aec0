// A user's custom profile fields for `field` options (lists/directory.ts: autocomplete and typed
// names), and the definitions an alter card lists its values by, in the system's order.
import type { ProfileField } from '../../domain/profile-fields.js';
import type { ApiClient } from '../api-client.js';
import type { LinkedAccounts } from '../links/linked-accounts.js';
import { createDirectory } from './directory.js';

export function createFieldDirectory(api: ApiClient, accounts: LinkedAccounts) {
  const directory = createDirectory<ProfileField>(accounts, {
    // A system has at most 100 fields: the first page is all of them.
    page: (token, target, page) => (page.skip === 0 ? api.listProfileFields(token, target) : Promise.resolve([])),
    id: (field) => field.fieldId,
    name: (field) => field.name,
    displayName: () => null,
    label: (field) => `${field.name} (${field.kind})`,
  });
  return {
    ...directory,

    /** The fields in the system's order as far as this viewer can see them; none when they cannot be read (never throws). */
    async ordered(viewerId: string, target = '@me'): Promise<ProfileField[]> {
      try {
        return [...(await directory.all(viewerId, target))].sort((a, b) => a.position - b.position);
      } catch {
        return [];
      }
    },
  };
}

export type FieldDirectory = ReturnType<typeof createFieldDirectory>;
