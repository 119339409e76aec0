// Every migration, in order. Listed statically (not read from disk) so the compiled build, the
// test runner and the CLI all see the same set.
import type { Migration } from 'kysely';
import * as initial from './2026-11-21T00-initial.js';
import * as uniqueIntegrationFields from './2026-11-21T01-unique-integration-fields.js';
import * as proxying from './2026-11-23T00-proxying.js';
import * as usernameKey from './2026-11-23T01-username-key.js';
import * as tagsAndSwitches from './2026-11-23T02-tags-and-switches.js';
import * as events from './2026-11-23T03-events.js';
import * as importLinks from './2026-11-23T04-import.js';
import * as auditLog from './2026-11-23T05-audit-log.js';
import * as alterCount from './2026-11-27T00-alter-count.js';
import * as guildSettings from './2026-11-27T01-guild-settings.js';
import * as proxiedName from './2026-11-27T03-proxied-name.js';
import * as browserSessions from './2026-11-27T10-browser-sessions.js';
import * as eventGrantPeriods from './2026-11-27T10-event-grant-periods.js';
import * as systemSize from './2026-11-27T10-system-size.js';
import * as eventValues from './2026-11-27T11-event-values.js';
import * as switchAlterLists from './2026-11-27T20l-switch-alter-lists.js';
import * as images from './2026-11-27T21-images.js';
import * as profileFields from './2026-11-27T21k-profile-fields.js';
import * as accountsCodes from './2026-11-28T00-accounts-codes.js';
import * as dashboardSessions from './2026-11-28T00-dashboard-sessions.js';
import * as customProfileFields from './2026-11-28T00-fields-custom-profile-fields.js';
import * as simplyPluralTagParents from './2026-11-28T00-simplyplural-tag-parents.js';
import * as statsFrontDays from './2026-11-28T00-stats-front-days.js';
import * as accountsAutoproxy from './2026-11-28T01-accounts-autoproxy.js';
import * as dashboardRefreshLease from './2026-11-29T00-dashboard-refresh-lease.js';
import * as switchListsSetBased from './2026-11-29T00-switch-lists-set-based.js';

export const migrations: Record<string, Migration> = {
  '2026-11-21T00-initial': initial,
  '2026-11-21T01-unique-integration-fields': uniqueIntegrationFields,
  '2026-11-23T00-proxying': proxying,
  '2026-11-23T01-username-key': usernameKey,
  '2026-11-23T02-tags-and-switches': tagsAndSwitches,
  '2026-11-23T03-events': events,
  '2026-11-23T04-import': importLinks,
  '2026-11-23T05-audit-log': auditLog,
  '2026-11-27T00-alter-count': alterCount,
  '2026-11-27T01-guild-settings': guildSettings,
  '2026-11-27T03-proxied-name': proxiedName,
  '2026-11-27T10-browser-sessions': browserSessions,
  '2026-11-27T10-event-grant-periods': eventGrantPeriods,
  '2026-11-27T10-system-size': systemSize,
  '2026-11-27T11-event-values': eventValues,
  '2026-11-27T20l-switch-alter-lists': switchAlterLists,
  '2026-11-27T21-images': images,
  '2026-11-27T21k-profile-fields': profileFields,
  '2026-11-28T00-accounts-codes': accountsCodes,
  '2026-11-28T00-dashboard-sessions': dashboardSessions,
  '2026-11-28T00-fields-custom-profile-fields': customProfileFields,
  '2026-11-28T00-simplyplural-tag-parents': simplyPluralTagParents,
  '2026-11-28T00-stats-front-days': statsFrontDays,
  '2026-11-28T01-accounts-autoproxy': accountsAutoproxy,
  '2026-11-29T00-dashboard-refresh-lease': dashboardRefreshLease,
  '2026-11-29T00-switch-lists-set-based': switchListsSetBased,
};
