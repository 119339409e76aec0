// The bot's HTTP client for its own requests (the service's API, Discord's attachment CDN):
// undici's `request`. The service depends on the same undici version as discord.js and
// @discordjs/rest, the REST client discord.js runs on (package.json pins it exactly; keep it in
// step when upgrading discord.js), so npm installs a single copy, which every bot process loads
// anyway for discord.js. A different version would be installed beside discord.js's and be a
// second HTTP client in every process running the bot: about 110 more modules and 2.4 MB more
// live heap. `npm ls undici` shows one copy when they agree.
export { request } from 'undici';
