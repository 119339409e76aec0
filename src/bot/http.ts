// The bot's HTTP client for its own requests (the service's API, Discord's attachment CDN):
// undici's `request`, from the copy of undici that @discordjs/rest, the REST client discord.js
// runs on, depends on. That copy is loaded in every bot process anyway; the service's own undici
// (a different major version, which npm therefore installs separately) would be a second HTTP
// client beside it: about 110 more modules and 2.4 MB more live heap in every process running the
// bot. The options and response the bot uses (method, headers, body, headersTimeout,
// bodyTimeout, signal; statusCode, headers, a readable body with text()) are the same in both
// versions. Should @discordjs/rest ever stop depending on undici, the service's own is used.
import { createRequire } from 'node:module';
import type { request as undiciRequest } from 'undici';

const require = createRequire(import.meta.url);

function loadRequest(): typeof undiciRequest {
  try {
    return (createRequire(require.resolve('@discordjs/rest'))('undici') as { request: typeof undiciRequest }).request;
  } catch {
    return (require('undici') as { request: typeof undiciRequest }).request;
  }
}

export const request = loadRequest();
