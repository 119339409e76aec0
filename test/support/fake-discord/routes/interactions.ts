// The bot's answers to interactions: POST /interactions/{id}/{token}/callback, and follow-ups and
// edits or deletions of @original and follow-ups under /webhooks/{application}/{token}.
import type { IncomingMessage } from 'node:http';
import { unknownWebhook } from '../refusals.js';
import type { RouteResult } from '../types.js';
import { readBody, type Parts } from './http.js';

export function createInteractionRoutes(parts: Parts) {
  const { state, msgs, interactions } = parts;
  const { applicationId } = state;
  const { newMessage, dispatchMessage, removeMessage, messageFields, editMessage } = msgs;
  const { stateFor, record, interactionMetadata, onCallback, resolveMessageId } = interactions;

  /** The interaction routes; undefined for any other path. */
  const interactionRoute = async (req: IncomingMessage, url: URL, segments: string[], raw: Buffer, receivedAt: bigint): Promise<RouteResult> => {
    const method = req.method ?? 'GET';
    const [first, second, third, fourth, fifth, sixth] = segments;
    if (first === 'interactions' && second && third && fourth === 'callback' && method === 'POST' && segments.length === 4) {
      const { json, files } = await readBody(req, raw);
      return onCallback(second, third, json, files, url.searchParams.get('with_response') === 'true', receivedAt);
    }

    if (first === 'webhooks' && second === applicationId && third) {
      const state = stateFor(third);
      if (fourth === undefined && method === 'POST') {
        if (!state.acknowledged) throw unknownWebhook();
        const { json, files } = await readBody(req, raw);
        const inChannel = state.payload.channel_id as string;
        const message = newMessage({
          ...messageFields(json, files, inChannel),
          channel_id: inChannel,
          webhook_id: applicationId,
          application_id: applicationId,
          interaction_metadata: interactionMetadata(state),
        });
        state.followUps.add(message.id);
        record(state, { kind: 'followup', messageId: message.id, body: json, files, receivedAt });
        dispatchMessage('MESSAGE_CREATE', message);
        return url.searchParams.get('wait') === 'true' ? { status: 200, body: message } : { status: 204 };
      }
      if (fourth === 'messages' && fifth && sixth === undefined) {
        const message = resolveMessageId(state, fifth);
        if (method === 'GET') return { status: 200, body: message };
        if (method === 'PATCH') {
          const { json, files } = await readBody(req, raw);
          editMessage(message, json, files);
          record(state, { kind: 'edit', messageId: message.id, body: json, files, receivedAt });
          dispatchMessage('MESSAGE_UPDATE', message);
          return { status: 200, body: message };
        }
        if (method === 'DELETE') {
          removeMessage(message);
          state.followUps.delete(message.id);
          if (state.originalMessageId === message.id) state.originalMessageId = undefined;
          record(state, { kind: 'delete', messageId: message.id, body: {}, files: [], receivedAt });
          return { status: 204 };
        }
      }
      return undefined;
    }
    return undefined;
  };

  return { interactionRoute };
}
