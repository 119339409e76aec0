// A user's alters for `alter` options (lists/directory.ts): a username or display name, or an id.
import type { Alter } from '../../domain/alter.js';
import type { ApiClient } from '../api-client.js';
import { alterName } from '../embeds.js';
import type { LinkedAccounts } from '../links/linked-accounts.js';
import { createDirectory } from './directory.js';

export function createAlterDirectory(api: ApiClient, accounts: LinkedAccounts) {
  return createDirectory<Alter>(accounts, {
    page: (token, target, page) => api.listAlters(token, target, page),
    id: (alter) => alter.alterId,
    name: (alter) => alter.username,
    displayName: (alter) => alter.displayName,
    typedName: (key) => key.replace(/^@/, ''), // also a typed fullwidth ＠
    label: alterName,
  });
}

export type AlterDirectory = ReturnType<typeof createAlterDirectory>;
