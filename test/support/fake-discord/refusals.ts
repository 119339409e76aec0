// What Discord refuses, with the status and error body it gives: the errors every route throws and
// the checks on message and webhook bodies.
import { webhookNameProblem } from './request-limits.js';
import type { Json, RecordedFile } from './types.js';

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly body: Json,
  ) {
    super(String(body.message));
  }
}

export const missingPermissions = (): HttpError => new HttpError(403, { message: 'Missing Permissions', code: 50013 });
export const missingAccess = (): HttpError => new HttpError(403, { message: 'Missing Access', code: 50001 });
export const unknownChannel = (): HttpError => new HttpError(404, { message: 'Unknown Channel', code: 10003 });
export const unknownMessage = (): HttpError => new HttpError(404, { message: 'Unknown Message', code: 10008 });
export const unknownWebhook = (): HttpError => new HttpError(404, { message: 'Unknown Webhook', code: 10015 });
export const invalidForm = (field: string, code: string, message: string): HttpError =>
  new HttpError(400, { message: 'Invalid Form Body', code: 50035, errors: { [field]: { _errors: [{ code, message }] } } });

/** What Discord refuses in a message create or edit: too long, too many embeds, too big, empty. */
export function validateMessage(body: Json, files: RecordedFile[], creating: boolean, uploadLimit: number): void {
  // Discord counts message length in code points (discord-api-docs #1315), not UTF-16 units.
  if (typeof body.content === 'string' && [...body.content].length > 2000) throw invalidForm('content', 'BASE_TYPE_MAX_LENGTH', 'Must be 2000 or fewer in length.');
  if (Array.isArray(body.embeds) && body.embeds.length > 10) throw invalidForm('embeds', 'BASE_TYPE_MAX_LENGTH', 'Must be 10 or fewer in length.');
  if (files.reduce((total, file) => total + file.data.length, 0) > uploadLimit) throw new HttpError(413, { message: 'Request entity too large', code: 40005 });
  if (!creating) return;
  const hasContent = typeof body.content === 'string' && body.content.trim() !== '';
  const nonEmpty = (value: unknown): boolean => Array.isArray(value) && value.length > 0;
  if (!hasContent && !nonEmpty(body.embeds) && files.length === 0 && !nonEmpty(body.components) && !body.poll && !nonEmpty(body.sticker_ids)) {
    throw new HttpError(400, { message: 'Cannot send an empty message', code: 50006 });
  }
}

/** Webhook names and per-message usernames, by Discord's rule (request-limits.ts). */
export function validateWebhookName(field: string, value: unknown): void {
  if (typeof value !== 'string') throw invalidForm(field, 'BASE_TYPE_REQUIRED', 'This field is required');
  const problem = webhookNameProblem(value);
  if (problem) throw invalidForm(field, problem.code, problem.message);
}
