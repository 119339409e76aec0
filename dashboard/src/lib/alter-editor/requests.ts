// The alter editor's two calls that the shared client (../api.ts) does not make: an edit whose
// refusal is shown next to the field each error names (the shared client keeps only the messages),
// and an image upload, which is multipart/form-data rather than JSON. Both go through the backend
// for the frontend with the session's CSRF token, as every state change of the dashboard does.
import { currentSession, type Schemas } from '../api';
import type { Alter, AlterEdit } from './types.js';

export type { Alter, AlterEdit };
export type ImagePurpose = 'avatar' | 'banner';

/** One error of a refused request: its sentence, and the field it names (`displayName`, `profileFields.3`), if any. */
export interface FieldError {
  field?: string;
  message: string;
}

/** A refusal from the service: every error it gave, each with its field. */
export class RefusedRequest extends Error {
  constructor(
    readonly status: number,
    readonly errors: FieldError[],
  ) {
    super(errors.map((error) => error.message).join('; ') || `The service answered ${status}.`);
  }
}

async function sendWrite(path: string, body: BodyInit, contentType?: string): Promise<unknown> {
  const headers: Record<string, string> = { accept: 'application/json', 'x-csrf-token': (await currentSession()).csrfToken };
  if (contentType) headers['content-type'] = contentType;
  const response = await fetch(`/dashboard/api${path}`, { method: 'POST', headers, credentials: 'same-origin', body });
  if (response.status === 401) {
    location.assign(`/dashboard/login?return=${encodeURIComponent(location.pathname + location.search)}`);
    throw new RefusedRequest(401, [{ message: 'Your session ended; signing in again.' }]);
  }
  const text = await response.text();
  let answer: unknown;
  try {
    answer = text === '' ? undefined : JSON.parse(text);
  } catch {
    answer = undefined;
  }
  if (!response.ok) {
    const errors = (answer as Schemas['Errors'] | undefined)?.errors ?? [];
    throw new RefusedRequest(
      response.status,
      errors.map((error) => ({ message: error.friendly, ...(error.field ? { field: error.field } : {}) })),
    );
  }
  return answer;
}

const segment = encodeURIComponent;

/** One edit request with only the changed keys; answers the alter as stored. */
export async function editAlter(alterId: number, edit: AlterEdit): Promise<Alter> {
  return (await sendWrite(`/v1/users/@me/alters/${segment(String(alterId))}/edit`, JSON.stringify(edit), 'application/json')) as Alter;
}

/**
 * Uploads one image (the browser sets the multipart boundary itself); answers the URL the service
 * serves it at, to put in an image field.
 */
export async function uploadImage(image: Blob, filename: string, purpose: ImagePurpose): Promise<string> {
  const form = new FormData();
  form.append('file', image, filename);
  const answer = (await sendWrite(`/v1/users/@me/images?purpose=${purpose}`, form)) as { data: Schemas['UploadedImage'] };
  return answer.data.url;
}
