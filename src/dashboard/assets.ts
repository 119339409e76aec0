// The dashboard's built front end (dashboard/, built by Vite into dist/dashboard/ by
// `npm run build`): index.html, served for every page of the dashboard, and the hashed files under
// assets/, served as immutable. Found from this module's place, whether it runs from src/ (tsx),
// dist/src/ (tsc) or a bundle folder, by walking up to the repository's package.json.
import { existsSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const CONTENT_TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.webp': 'image/webp',
  '.woff2': 'font/woff2',
  '.json': 'application/json',
  '.map': 'application/json',
};

/** A file name as Vite writes them: no directory parts, nothing hidden. */
const ASSET_NAME = /^[A-Za-z0-9_-][A-Za-z0-9_.-]*$/;

export interface DashboardAssets {
  /** index.html, or undefined when the dashboard was not built. */
  indexHtml(): string | undefined;
  /**
   * A file of assets/ with its content type, or undefined; in the best encoding `acceptEncoding`
   * allows of those the build wrote (Brotli, gzip), else as it is.
   */
  asset(name: string, acceptEncoding?: string): Promise<{ body: Buffer; type: string; encoding: 'br' | 'gzip' | undefined } | undefined>;
}

export function defaultDashboardDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, 'package.json'))) return join(dir, 'dist', 'dashboard');
    const parent = dirname(dir);
    if (parent === dir) return join(process.cwd(), 'dist', 'dashboard');
    dir = parent;
  }
}

export function dashboardAssets(dir = defaultDashboardDir()): DashboardAssets {
  let index: string | undefined;
  return {
    indexHtml() {
      // Read once: a build replaces the folder, and a running instance keeps the page it started with.
      if (index === undefined && existsSync(join(dir, 'index.html'))) index = readFileSync(join(dir, 'index.html'), 'utf8');
      return index;
    },
    async asset(name, acceptEncoding = '') {
      const type = CONTENT_TYPES[extname(name)];
      if (!ASSET_NAME.test(name) || !type) return undefined;
      const accepted = new Set(acceptEncoding.split(',').map((part) => part.split(';')[0]?.trim().toLowerCase()));
      for (const [encoding, suffix] of [['br', '.br'], ['gzip', '.gz']] as const) {
        if (!accepted.has(encoding)) continue;
        const body = await readFile(join(dir, 'assets', `${name}${suffix}`)).catch(() => undefined);
        if (body) return { body, type, encoding };
      }
      try {
        return { body: await readFile(join(dir, 'assets', name)), type, encoding: undefined };
      } catch {
        return undefined;
      }
    },
  };
}
