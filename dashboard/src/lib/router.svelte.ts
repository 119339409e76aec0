// The dashboard's own router: each screen has a real URL under /dashboard/ (so a member can
// bookmark it, sign in and land on it, and the back button works), without a full page load.
// Links under /dashboard/ are followed in place; after a navigation the new screen's main region
// takes the focus, so a screen reader announces it and keyboard users start at its top.
import type { Component } from 'svelte';

export const BASE = '/dashboard';

/** What every screen receives: its URL's parameters (`{ alter: '12' }` for `/alters/:alter`). */
export interface ScreenProps {
  params: Record<string, string>;
}

export interface Route {
  /** A path under /dashboard, with `:name` segments for parameters: `/alters/:alter`. */
  pattern: string;
  /** The document's title, also what the top navigation shows when `nav` is set. */
  title: string;
  /** Shown in the top navigation under this name. */
  nav?: string;
  /** The screen, loaded when first visited (only the Overview is in the first load's budget). */
  load: () => Promise<{ default: Component<ScreenProps> }>;
}

export interface Match {
  route: Route;
  params: Record<string, string>;
}

class Place {
  path = $state(currentPath());
  search = $state(location.search);
}

/** Where the dashboard is: the path under /dashboard (always starting with '/') and the query. */
export const place = new Place();

function currentPath(): string {
  const path = location.pathname.startsWith(BASE) ? location.pathname.slice(BASE.length) : location.pathname;
  return path === '' ? '/' : path;
}

/** The route for a path, with its parameters decoded; undefined when no screen has it. */
export function matchRoute(routes: readonly Route[], path: string): Match | undefined {
  const parts = path.split('/').filter(Boolean);
  for (const route of routes) {
    const pattern = route.pattern.split('/').filter(Boolean);
    if (pattern.length !== parts.length) continue;
    const params: Record<string, string> = {};
    let matched = true;
    for (const [index, segment] of pattern.entries()) {
      const part = parts[index] as string;
      if (segment.startsWith(':')) {
        try {
          params[segment.slice(1)] = decodeURIComponent(part);
        } catch {
          matched = false;
        }
      } else if (segment !== part) matched = false;
      if (!matched) break;
    }
    if (matched) return { route, params };
  }
  return undefined;
}

/** The full href of a dashboard path: `href('/alters')` is `/dashboard/alters`. */
export function href(path: string): string {
  return `${BASE}${path === '/' ? '/' : path}`;
}

/**
 * What a screen with unsaved work registers (its `guardLeaving`): asked before the dashboard goes
 * elsewhere, it answers whether to go (after asking the member, if there is anything to lose).
 */
export type LeaveGuard = () => Promise<boolean>;

let guard: LeaveGuard | undefined;

/**
 * Registers the guard asked before every in-place navigation (a link, `navigate`, the back and
 * forward buttons) and before signing out; answers the function that removes it. One screen is
 * shown at a time, so there is one guard at most. Leaving the page itself (a reload, another site,
 * closing the tab) is the browser's to ask about: the screen listens for `beforeunload` too.
 */
export function guardLeaving(check: LeaveGuard): () => void {
  guard = check;
  return () => {
    if (guard === check) guard = undefined;
  };
}

/** Whether the dashboard may leave the current screen: true without a guard, else the guard's answer. */
export async function mayLeave(): Promise<boolean> {
  return guard ? guard() : true;
}

// Where in the session's history the shown entry is, kept in each entry's state: when the back or
// forward button is refused, the browser has already moved, and this says how far to move back.
interface EntryState {
  dashboardIndex: number;
}
const indexOf = (state: unknown): number | undefined =>
  typeof state === 'object' && state !== null && typeof (state as Partial<EntryState>).dashboardIndex === 'number' ? (state as EntryState).dashboardIndex : undefined;

let index = indexOf(history.state) ?? 0;
if (indexOf(history.state) === undefined) history.replaceState({ dashboardIndex: index } satisfies EntryState, '');

function push(url: URL, replace = false): void {
  if (replace) history.replaceState({ dashboardIndex: index } satisfies EntryState, '', url);
  else history.pushState({ dashboardIndex: ++index } satisfies EntryState, '', url);
  sync();
}

/** Whether going to `url` changes the screen or its query (a link to `#main` does not). */
const movesAway = (url: URL): boolean => url.pathname !== location.pathname || url.search !== location.search;

/** Goes to a dashboard path (`/alters/12`) without reloading the page, once the screen's guard agrees; answers whether it went. */
export function navigate(path: string, options: { replace?: boolean } = {}): Promise<boolean> {
  const url = new URL(href(path), location.origin);
  return go(url, options.replace);
}

/** Goes to `url` at once when nothing guards the screen (so the address follows every keystroke of a search), else once the guard agrees. */
function go(url: URL, replace = false): Promise<boolean> {
  if (!guard || !movesAway(url)) {
    push(url, replace);
    return Promise.resolve(true);
  }
  return guard().then((leave) => {
    if (leave) push(url, replace);
    return leave;
  });
}

/** A history move the guard is being asked about, or was refused: its popstate events are not screen changes. */
let restoring = false;
/** Settles when the browser has undone that move (history.go is asynchronous). */
let undone: () => void = () => undefined;

function onPopState(): void {
  const to = indexOf(history.state);
  if (restoring) {
    // The browser went back to where the guard was asked: nothing changes on the page.
    restoring = false;
    undone();
    return;
  }
  if (guard && to !== undefined && to !== index) {
    const delta = to - index;
    // Undo the move while the guard asks (the address stays that of the screen with the work),
    // then make it again if the member chooses to leave, once the undo has landed: a second
    // traversal started before the first is done would be taken for it.
    restoring = true;
    const landed = new Promise<void>((resolve) => (undone = resolve));
    history.go(-delta);
    void Promise.all([mayLeave(), landed]).then(([leave]) => {
      if (!leave) return;
      guard = undefined;
      history.go(delta);
    });
    return;
  }
  if (to !== undefined) index = to;
  sync();
}

function sync(): void {
  place.path = currentPath();
  place.search = location.search;
}

/**
 * Follows in place a plain left click on a link to a dashboard page; anything else (a modifier
 * key, a new tab, a download, a `data-reload` link, another origin, the sign-in and API paths)
 * is the browser's.
 */
export function followLinksInPlace(root: HTMLElement): () => void {
  const onClick = (event: MouseEvent) => {
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    const anchor = (event.target as Element | null)?.closest('a');
    if (!anchor || anchor.target || anchor.hasAttribute('download') || anchor.hasAttribute('data-reload')) return;
    const url = new URL(anchor.href, location.href);
    if (url.origin !== location.origin || !(url.pathname === BASE || url.pathname.startsWith(`${BASE}/`))) return;
    if (url.pathname.startsWith(`${BASE}/api/`) || url.pathname === `${BASE}/login` || url.pathname === `${BASE}/callback`) return;
    event.preventDefault();
    void go(url);
  };
  root.addEventListener('click', onClick);
  addEventListener('popstate', onPopState);
  return () => {
    root.removeEventListener('click', onClick);
    removeEventListener('popstate', onPopState);
  };
}
