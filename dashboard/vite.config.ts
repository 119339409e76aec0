// The dashboard's build: Svelte 5 compiled by Vite into dist/dashboard/, served by the service
// under /dashboard (src/dashboard/). Hashed file names (the service serves them as immutable), CSS
// in files of its own (the page's CSP allows no inline style), no module-preload polyfill (it
// would be inline script otherwise, and every browser the dashboard supports has modulepreload).
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const outDir = process.env.DASHBOARD_OUT_DIR ?? fileURLToPath(new URL('../dist/dashboard', import.meta.url));

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/dashboard/',
  plugins: [svelte({ compilerOptions: { css: 'external' } })],
  build: {
    outDir,
    emptyOutDir: true,
    assetsDir: 'assets',
    target: 'es2022',
    modulePreload: { polyfill: false },
    cssCodeSplit: true,
    assetsInlineLimit: 0,
    sourcemap: false,
  },
});
