// Interactions: the payload builders (slash commands, autocomplete, components, context menus,
// modals) that refuse what Discord would not deliver, and the answers the bot gives (callbacks,
// edits of @original, follow-ups), recorded per interaction.
import { randomBytes } from 'node:crypto';
import { DEFAULT_BOT_PERMISSIONS, EPHEMERAL, EVERYONE_PERMISSIONS, LOADING } from './constants.js';
import { partialMember, resolvedUsers, toApiUser, waitWithTimeout } from './objects.js';
import { HttpError, unknownMessage, unknownWebhook } from './refusals.js';
import type { Commands } from './commands.js';
import type { Gateway } from './gateway.js';
import type { GuildModel } from './guild.js';
import type { Messages } from './messages.js';
import type { Permissions } from './permissions.js';
import type { FakeState } from './state.js';
import type { ApiMessage, FakeDiscord, InteractionBase, InteractionPayload, InteractionState, Json, RecordedFile, RecordedResponse, SlashCommandInput } from './types.js';

export type Interactions = ReturnType<typeof createInteractions>;

export function createInteractions(
  state: FakeState,
  gateway: Pick<Gateway, 'dispatchTo' | 'liveSessionOrThrow'>,
  guildModel: Pick<GuildModel, 'textChannel'>,
  permissions: Pick<Permissions, 'permissionsIn'>,
  msgs: Pick<Messages, 'newMessage' | 'messageFields' | 'dispatchMessage' | 'editMessage' | 'componentMessage' | 'storedMessage'>,
  commands: Pick<Commands, 'commandIdFor' | 'commandAllowed'>,
) {
  const { guild, applicationId, channelId, channels, members, messages, interactionsByToken, snowflake } = state;
  const { dispatchTo, liveSessionOrThrow } = gateway;
  const { textChannel } = guildModel;
  const { permissionsIn } = permissions;
  const { newMessage, messageFields, dispatchMessage, editMessage, componentMessage, storedMessage } = msgs;
  const { commandIdFor, commandAllowed } = commands;

  const stateFor = (token: string): InteractionState => {
    const state = interactionsByToken.get(token);
    if (!state) throw unknownWebhook();
    return state;
  };

  const record = (state: InteractionState, response: RecordedResponse): void => {
    state.responses.push(response);
    for (const listener of [...state.listeners]) listener();
  };

  const interactionMetadata = (state: InteractionState): Json => {
    const p = state.payload;
    const member = p.member as Json | undefined;
    return {
      id: p.id,
      type: p.type,
      user: member?.user ?? p.user,
      authorizing_integration_owners: p.authorizing_integration_owners,
      ...(typeof p.data?.name === 'string' ? { name: p.data.name } : {}),
    };
  };

  const messageTypeFor = (state: InteractionState): number => {
    if (state.payload.type !== 2) return 0;
    return state.payload.data?.type === 1 ? 20 : 23;
  };

  const onCallback = (
    id: string,
    token: string,
    body: Json,
    files: RecordedFile[],
    withResponse: boolean,
    receivedAt: bigint,
  ): { status: number; body?: Json } => {
    const state = interactionsByToken.get(token);
    if (!state || state.payload.id !== id) throw new HttpError(404, { message: 'Unknown interaction', code: 10062 });
    if (state.acknowledged) throw new HttpError(400, { message: 'Interaction has already been acknowledged.', code: 40060 });
    const type = Number(body.type);
    const data = (body.data ?? {}) as Json;
    const inChannel = state.payload.channel_id as string;
    let message: ApiMessage | undefined;
    const component = state.payload.message ? messages.get(state.payload.message.id) : undefined;
    switch (type) {
      case 4:
      case 5: {
        const fields = messageFields(data, files, inChannel);
        if (type === 5) fields.flags = ((fields.flags ?? 0) & EPHEMERAL) | LOADING;
        message = newMessage({
          ...fields,
          type: messageTypeFor(state),
          channel_id: inChannel,
          webhook_id: applicationId,
          application_id: applicationId,
          interaction_metadata: interactionMetadata(state),
        });
        state.originalMessageId = message.id;
        dispatchMessage('MESSAGE_CREATE', message);
        break;
      }
      case 6:
      case 7:
        if (!component) throw new HttpError(400, { message: 'Invalid Form Body', code: 50035 });
        if (type === 7) {
          editMessage(component, data, files);
          dispatchMessage('MESSAGE_UPDATE', component);
        }
        message = component;
        state.originalMessageId = component.id;
        break;
      case 8:
      case 9:
        break;
      default:
        throw new HttpError(400, {
          message: 'Invalid Form Body',
          code: 50035,
          errors: { type: { _errors: [{ code: 'BASE_TYPE_CHOICES', message: 'Value must be one of {1, 4, 5, 6, 7, 8, 9, 10, 12}.' }] } },
        });
    }
    state.acknowledged = true;
    record(state, { kind: 'callback', callbackType: type, messageId: message?.id, body: data, files, receivedAt });
    if (!withResponse) return { status: 204 };
    return {
      status: 200,
      body: {
        interaction: {
          id: state.payload.id,
          type: state.payload.type,
          activity_instance_id: null,
          response_message_id: message?.id ?? null,
          response_message_loading: type === 5,
          response_message_ephemeral: message ? (message.flags & EPHEMERAL) !== 0 : false,
        },
        resource: { type, ...(message ? { message } : {}) },
      },
    };
  };

  const resolveMessageId = (state: InteractionState, messageId: string): ApiMessage => {
    const id = messageId === '@original' ? state.originalMessageId : messageId;
    const message = id === undefined ? undefined : messages.get(id);
    if (!message || (messageId !== '@original' && !state.followUps.has(message.id))) throw unknownMessage();
    return message;
  };

  const basePayload = (type: number, input: InteractionBase, data: Json): InteractionPayload => {
    const invoker = toApiUser(input.user);
    const permissions = input.permissions ?? EVERYONE_PERMISSIONS;
    const inChannel = input.channelId ?? channelId;
    if (type === 2 || type === 4) {
      const allowed = commandAllowed(
        String(data.name),
        Number(data.type ?? 1),
        invoker.id,
        inChannel,
        input.permissions === undefined ? undefined : BigInt(input.permissions),
      );
      if (allowed === false) throw new Error(`fake Discord: Discord would not deliver "${String(data.name)}" to ${invoker.username} here (default_member_permissions or the server's command permissions)`);
    }
    const known = channels.get(inChannel);
    const member = members.get(invoker.id);
    return {
      id: snowflake(),
      application_id: applicationId,
      type,
      data,
      guild_id: guild.id,
      guild: { id: guild.id, locale: 'en-US', features: [] },
      channel_id: inChannel,
      channel: known ? structuredClone(known) : textChannel(inChannel, 'channel'),
      member: { ...partialMember(permissions, member?.roles ?? [], member?.nick ?? null), user: invoker },
      token: randomBytes(48).toString('base64url'),
      version: 1,
      locale: input.locale ?? 'en-US',
      guild_locale: 'en-US',
      app_permissions: (known ? permissionsIn(inChannel) : DEFAULT_BOT_PERMISSIONS).toString(),
      entitlements: [],
      entitlement_sku_ids: [],
      authorizing_integration_owners: { '0': guild.id },
      context: 0,
      attachment_size_limit: state.uploadLimit,
    };
  };

  const commandOptions = (input: SlashCommandInput): Json[] | undefined => {
    let options = input.options;
    if (input.subcommand) options = [{ type: 1, name: input.subcommand, options: options ?? [] }];
    if (input.subcommandGroup) options = [{ type: 2, name: input.subcommandGroup, options: options ?? [] }];
    return options;
  };

  const commandData = (input: SlashCommandInput): Json => ({
    id: input.commandId ?? commandIdFor(input.name, 1),
    name: input.name,
    type: 1,
    ...(commandOptions(input) ? { options: commandOptions(input) } : {}),
    ...(input.resolved ? { resolved: input.resolved } : {}),
  });


  const api: Pick<FakeDiscord, 'slashCommand' | 'autocomplete' | 'button' | 'userContextMenu' | 'messageContextMenu' | 'modalSubmit' | 'dispatchInteraction'> = {
    slashCommand(input) {
      return basePayload(2, input, commandData(input));
    },

    autocomplete(input) {
      return basePayload(4, input, commandData(input));
    },

    button(input) {
      const message = componentMessage(input.message);
      const data: Json = { custom_id: input.customId, component_type: input.componentType ?? 2 };
      if (input.values) data.values = input.values;
      if (input.resolved) data.resolved = input.resolved;
      return { ...basePayload(3, input, data), message };
    },

    userContextMenu(input) {
      const target = toApiUser(input.targetUser);
      return basePayload(2, input, {
        id: input.commandId ?? commandIdFor(input.name, 2),
        name: input.name,
        type: 2,
        target_id: target.id,
        resolved: resolvedUsers([target]),
      });
    },

    messageContextMenu(input) {
      const given = input.targetMessage;
      const target = typeof given === 'string' ? storedMessage(given) : (messages.get(given.id) ?? given);
      // Discord resolves the whole message, content included whatever the intents.
      const resolved = structuredClone(target);
      delete resolved.member;
      return basePayload(2, { ...input, channelId: input.channelId ?? target.channel_id }, {
        id: input.commandId ?? commandIdFor(input.name, 3),
        name: input.name,
        type: 3,
        target_id: target.id,
        resolved: { messages: { [target.id]: resolved } },
      });
    },

    modalSubmit(input) {
      const payload = basePayload(5, input, { custom_id: input.customId, components: input.components });
      return input.message ? { ...payload, message: componentMessage(input.message) } : payload;
    },
    dispatchInteraction(payload) {
      // A guild's interactions reach its shard; a direct message's reach shard 0.
      const session = liveSessionOrThrow(typeof payload.guild_id === 'string' ? payload.guild_id : undefined);
      const state: InteractionState = { payload, responses: [], listeners: new Set(), acknowledged: false, followUps: new Set() };
      interactionsByToken.set(payload.token, state);
      const sentAt = process.hrtime.bigint();
      dispatchTo(session, 'INTERACTION_CREATE', payload);
      return {
        id: payload.id,
        token: payload.token,
        payload,
        sentAt,
        responses: state.responses,
        waitForResponse(predicate = () => true, timeoutMs = 5000) {
          const found = (): RecordedResponse | undefined => state.responses.find(predicate);
          const already = found();
          if (already) return Promise.resolve(already);
          return waitWithTimeout(`a response to interaction ${payload.id}`, timeoutMs, (done) => {
            const check = (): void => {
              if (found()) done();
            };
            state.listeners.add(check);
            return () => state.listeners.delete(check);
          }).then(
            () => found() as RecordedResponse,
            (error: Error) => {
              throw new Error(`${error.message}; recorded so far: ${JSON.stringify(state.responses.map((r) => ({ kind: r.kind, callbackType: r.callbackType, body: r.body })))}`);
            },
          );
        },
        latestMessage() {
          const message = state.originalMessageId === undefined ? undefined : messages.get(state.originalMessageId);
          return message && structuredClone(message);
        },
      };
    },
  };

  return { api, stateFor, record, interactionMetadata, onCallback, resolveMessageId };
}
