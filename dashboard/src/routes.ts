// Every screen of the dashboard, in the order of the top navigation. A screen is a component in
// screens/ that takes its URL parameters as `params`; it is loaded when first visited, so only the
// Overview counts towards the first load.
import type { Route } from './lib/router.svelte';

export const ROUTES: readonly Route[] = [
  { pattern: '/', title: 'Overview', nav: 'Overview', load: () => import('./screens/Overview.svelte') },
  { pattern: '/import', title: 'Import & export', nav: 'Import & export', load: () => import('./screens/ImportExport.svelte') },
  { pattern: '/apps', title: 'Apps', nav: 'Apps', load: () => import('./screens/Apps.svelte') },
];
