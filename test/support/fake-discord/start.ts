// Puts the fake's parts together: state, gateway, guild model, permissions, messages, webhooks,
// commands, interactions and other bots, the routes over them and the HTTP server; the FakeDiscord
// a test gets is the union of each part's share of the harness API.
import { OWNER_ID } from './constants.js';
import { createCommands } from './commands.js';
import { createGateway } from './gateway.js';
import { createGuildModel } from './guild.js';
import { createInteractions } from './interactions.js';
import { createMessages } from './messages.js';
import { createOtherBots } from './other-bots.js';
import { createPermissions } from './permissions.js';
import { createBotRoutes } from './routes/bot.js';
import { createOAuthRoutes } from './routes/oauth.js';
import { startServer } from './server.js';
import { createState, type FakeDiscordOptions } from './state.js';
import type { FakeDiscord } from './types.js';
import { createWebhooks } from './webhooks.js';

export type { FakeDiscordOptions };

export async function startFakeDiscord(options: FakeDiscordOptions = {}): Promise<FakeDiscord> {
  const state = createState(options);
  // The gateway describes the guilds and the guild model dispatches its changes on the gateway.
  const gateway = createGateway(state, (guildId, intents) =>
    guildId === state.guild.id ? guildModel.guildCreate(intents) : guildModel.otherGuildCreate(guildId),
  );
  const guildModel = createGuildModel(state, gateway);
  const permissions = createPermissions(state);
  // Messages and other bots call each other: filters act on new messages, loggers on deletions.
  const msgs = createMessages(state, gateway, guildModel, {
    reportDeletion: (message) => otherBots.reportDeletion(message),
    applyFilters: (message, when) => otherBots.applyFilters(message, when),
  });
  const otherBots = createOtherBots(state, guildModel, permissions, msgs);
  const webhooks = createWebhooks(state, gateway, guildModel);
  const commands = createCommands(state, gateway, permissions);
  const interactions = createInteractions(state, gateway, guildModel, permissions, msgs, commands);
  const oauth = createOAuthRoutes(state);
  const { botRoute } = createBotRoutes({ state, gateway, guildModel, permissions, msgs, webhooks, commands, interactions, otherBots });
  const server = await startServer(state, gateway.wss, { oauthRoute: oauth.oauthRoute, botRoute });

  return {
    apiBase: `http://127.0.0.1:${state.port}/api`,
    clientId: state.clientId,
    clientSecret: state.clientSecret,
    requests: state.requests,
    botToken: state.botToken,
    applicationId: state.applicationId,
    botUser: state.botUser,
    guild: state.guild,
    channelId: state.channelId,
    botRoleId: state.botRoleId,
    ownerId: OWNER_ID,
    waitFor: state.waitFor,
    ...oauth.api,
    ...gateway.api,
    ...server.api,
    ...guildModel.api,
    ...permissions.api,
    ...commands.api,
    ...otherBots.api,
    ...msgs.api,
    ...webhooks.api,
    ...interactions.api,

    addGuild({ name, shard, count, channels = 0, roles = 0 }) {
      // The smallest id past the fake's own guild's whose shard of `count` is `shard`.
      let id = (BigInt(state.guild.id) >> 22n) + 1n;
      while (Number(id % BigInt(count)) !== shard || state.otherGuilds.has((id << 22n).toString())) id += 1n;
      const guildId = (id << 22n).toString();
      const ids = (n: number) => Array.from({ length: n }, () => state.snowflake());
      state.otherGuilds.set(guildId, { id: guildId, name, channelIds: ids(channels), roleIds: ids(roles) });
      gateway.guildAdded(guildId);
      return guildId;
    },

    async close() {
      await gateway.close();
      await server.close();
    },
  };
}
