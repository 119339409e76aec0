// The proxy profile of one system for one server: its alters, the autoproxy entries that can be in
// effect there, and the primary fronters "front" autoproxy follows.
import type { Kysely } from 'kysely';
import { MAX_ALTERS_PER_SYSTEM } from '../../domain/alter.js';
import { AUTOPROXY_MODES, GLOBAL_SCOPE } from '../../domain/autoproxy.js';
import { buildProxyProfile, type ProxyProfile } from '../../domain/proxy-profile.js';
import type { SystemRecord } from '../../domain/system.js';
import type { Schema } from '../tables.js';
import { listAlters } from './alters.js';
import { toAutoproxyRecord } from './autoproxy.js';
import { latestPushes } from './switches.js';

/**
 * `accountId` is the account the profile is for: of the autoproxy entries, those of every account
 * and its own, its own winning over the system's of the same scope (the others' are not its).
 */
export async function loadProxyProfile(db: Kysely<Schema>, system: SystemRecord, revision: number, guildId: string, accountId: string): Promise<ProxyProfile> {
  const [alters, entries] = await Promise.all([
    listAlters(db, system.id, { skip: 0, max: MAX_ALTERS_PER_SYSTEM }, { onlyVisible: false, fieldsFor: null, allFields: true, profileFields: false }),
    db
      .selectFrom('autoproxy')
      .select(['scope', 'account_id', 'mode', 'alter_id', 'last_latch_at', 'revision'])
      .where('system_id', '=', system.id)
      .where('account_id', 'in', ['', accountId])
      .where((eb) => eb.or([eb('scope', '=', GLOBAL_SCOPE), eb('scope', '=', guildId), eb('scope', 'like', `${guildId}/%`)]))
      .orderBy('scope')
      .execute(),
  ]);
  // Sorted by scope, then account: a scope's own entry ('' sorts first) replaces the shared one.
  const byScope = new Map(entries.sort((a, b) => a.account_id.localeCompare(b.account_id)).map((row) => [row.scope, toAutoproxyRecord(row)]));
  const autoproxy = [...byScope.values()].sort((a, b) => (a.scope < b.scope ? -1 : a.scope > b.scope ? 1 : 0));
  const followedClients = [...new Set(autoproxy.map((entry) => entry.mode).filter((mode) => !(AUTOPROXY_MODES as readonly string[]).includes(mode)))];
  const front = await latestPushes(db, system.id, followedClients);
  return buildProxyProfile(system, revision, guildId, alters, autoproxy, front);
}
