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

export async function loadProxyProfile(db: Kysely<Schema>, system: SystemRecord, revision: number, guildId: string): Promise<ProxyProfile> {
  const [alters, entries] = await Promise.all([
    listAlters(db, system.id, { skip: 0, max: MAX_ALTERS_PER_SYSTEM }, { onlyVisible: false, fieldsFor: null, allFields: true }),
    db
      .selectFrom('autoproxy')
      .select(['scope', 'mode', 'alter_id', 'last_latch_at', 'revision'])
      .where('system_id', '=', system.id)
      .where((eb) => eb.or([eb('scope', '=', GLOBAL_SCOPE), eb('scope', '=', guildId), eb('scope', 'like', `${guildId}/%`)]))
      .orderBy('scope')
      .execute(),
  ]);
  const autoproxy = entries.map(toAutoproxyRecord);
  const followedClients = [...new Set(autoproxy.map((entry) => entry.mode).filter((mode) => !(AUTOPROXY_MODES as readonly string[]).includes(mode)))];
  const front = await latestPushes(db, system.id, followedClients);
  return buildProxyProfile(system, revision, guildId, alters, autoproxy, front);
}
