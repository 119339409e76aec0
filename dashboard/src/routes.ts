// Every screen of the dashboard, in the order of the top navigation. A screen is a component in
// screens/ that takes its URL parameters as `params`; it is loaded when first visited, so only the
// Overview counts towards the first load.
import type { Route } from './lib/router.svelte';

export const ROUTES: readonly Route[] = [
  { pattern: '/', title: 'Overview', nav: 'Overview', load: () => import('./screens/Overview.svelte') },
  { pattern: '/alters', title: 'Alters', nav: 'Alters', load: () => import('./screens/Alters.svelte') },
  { pattern: '/tags', title: 'Tags', nav: 'Tags', load: () => import('./screens/Tags.svelte') },
  { pattern: '/history', title: 'Front history', nav: 'History', load: () => import('./screens/History.svelte') },
  { pattern: '/stats', title: 'Front statistics', nav: 'Statistics', load: () => import('./screens/Stats.svelte') },
  { pattern: '/alters/:alter', title: 'Edit alter', load: () => import('./screens/AlterEditor.svelte') },
];
