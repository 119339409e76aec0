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

/** Goes to a dashboard path (`/alters/12`) without reloading the page. */
export function navigate(path: string, options: { replace?: boolean } = {}): void {
  const url = new URL(href(path), location.origin);
  if (options.replace) history.replaceState(null, '', url);
  else history.pushState(null, '', url);
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
    history.pushState(null, '', url);
    sync();
  };
  root.addEventListener('click', onClick);
  addEventListener('popstate', sync);
  return () => {
    root.removeEventListener('click', onClick);
    removeEventListener('popstate', sync);
  };
}
