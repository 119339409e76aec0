import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/** What src/bot/ and commands/ never import (the service's insides, and commands/ from the bot). */
const botBoundaries = [
  {
    regex: '^(\\.\\./)+(src/)?(auth|db|http|events)(/|$)',
    message: 'The bot talks to the service through src/bot/api-client.ts only; wire service internals in src/run-bot.ts or src/main.ts.',
  },
  {
    regex: '^(\\.\\./)+commands(/|$)',
    message: 'src/bot/ receives the command list (startBot, launchBot); it never imports commands/, which import src/bot/.',
  },
];

export default tseslint.config(
  // dashboard/src/lib/api-types.ts is generated (scripts/dashboard-api-types.ts).
  { ignores: ['dist/', 'node_modules/', 'data/', 'coverage/', 'test/artifacts/', 'dashboard/src/lib/api-types.ts'] },
  js.configs.recommended,
  ...tseslint.configs.strict,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      'no-console': ['error', { allow: ['error'] }],
      // Code lines fit 160 characters (a statement longer than that is wrapped; prettier's
      // range formatting wraps one statement as this code base does). Strings, template literals,
      // URLs and regular expressions are left whole: cutting a sentence or a pattern reads worse.
      'max-len': ['error', { code: 160, ignoreStrings: true, ignoreTemplateLiterals: true, ignoreUrls: true, ignoreRegExpLiterals: true }],
    },
  },
  {
    // Command-line programs print their results.
    files: ['src/cli/**', 'test/**', 'bench/**'],
    rules: { 'no-console': 'off' },
  },
  {
    // The bot and its commands reach the service only over HTTP (src/bot/api-client.ts): the
    // composition roots (src/main.ts, src/run-bot.ts, the CLI) wire them to the service's insides.
    files: ['src/bot/**', 'commands/**'],
    ignores: ['src/bot/api-client.ts', 'src/bot/api/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            ...botBoundaries,
            {
              regex: '(^|/)api/(transport|errors)(\\.js)?$',
              message: 'Endpoints and ApiError come from src/bot/api-client.ts; src/bot/api/ is its inside.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src/bot/api-client.ts', 'src/bot/api/**'],
    rules: { 'no-restricted-imports': ['error', { patterns: botBoundaries }] },
  },
  {
    // The domain decides; it knows nothing of storage, HTTP, configuration, Discord or other rooms.
    files: ['src/domain/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(\\.\\./)+(db|http|config|auth|bot|events|cli|workers)(/|$)',
              message: 'src/domain/ is pure: storage, HTTP, configuration and the other rooms depend on it, never the other way round.',
            },
            { regex: '^(discord\\.js|fastify|kysely|pg|better-sqlite3|ioredis|keyv|oidc-provider|undici)$', message: 'src/domain/ is pure: no I/O libraries.' },
            { regex: '^node:(fs|net|http|https|child_process|worker_threads|dns)$', message: 'src/domain/ is pure: no I/O.' },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.mjs'],
    languageOptions: { globals: { process: 'readonly', URLSearchParams: 'readonly' } },
  },
);
