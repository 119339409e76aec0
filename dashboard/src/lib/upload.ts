// Sends an export file to the import endpoint through the backend for the frontend, reporting how
// much of it has been sent. fetch() cannot tell upload progress; XMLHttpRequest can, and a file of
// up to 32 MiB takes long enough on a slow connection for the member to want to see it move. The
// import itself is one transaction on the service, which reports nothing until it is done.
import { ApiError, currentSession, type Schemas } from './api';
import type { paths } from './api-types';

export type ImportMode = 'merge' | 'add' | 'replace';

/** The import's query parameters, as the generated API types spell them. */
type ImportQuery = NonNullable<paths['/v1/users/{user}/system/import']['post']['parameters']['query']>;

export interface ImportOptions {
  mode: ImportMode;
  history: boolean;
  dryRun: boolean;
  /** Simply Plural files only (the service ignores them for other formats): whether custom fronts become alters. */
  customFronts?: NonNullable<ImportQuery['customFronts']>;
  /** Simply Plural files only: make public what friends could see there (otherwise everything is private). */
  friendsArePublic?: boolean;
}

export type ImportReport = Schemas['ImportReport'];

/** `sent` goes from 0 to 1 while the file is uploaded; then the service applies it. */
export type OnProgress = (sent: number) => void;

export async function importFile(file: Blob, options: ImportOptions, onProgress: OnProgress = () => {}): Promise<ImportReport> {
  const { csrfToken } = await currentSession();
  const query = new URLSearchParams({ mode: options.mode, history: String(options.history), dryRun: String(options.dryRun) });
  if (options.customFronts) query.set('customFronts', options.customFronts);
  if (options.friendsArePublic !== undefined) query.set('friendsArePublic', String(options.friendsArePublic));
  const request = new XMLHttpRequest();
  request.open('POST', `/dashboard/api/v1/users/@me/system/import?${query.toString()}`);
  request.setRequestHeader('content-type', 'application/json');
  request.setRequestHeader('accept', 'application/json');
  request.setRequestHeader('x-csrf-token', csrfToken);
  // A retried apply (a dropped connection) answers the first report instead of importing twice.
  if (!options.dryRun) request.setRequestHeader('idempotency-key', crypto.randomUUID());
  request.responseType = 'text';
  request.upload.addEventListener('progress', (event) => {
    if (event.lengthComputable && event.total > 0) onProgress(event.loaded / event.total);
  });
  const done = new Promise<void>((resolve, reject) => {
    request.addEventListener('load', () => resolve());
    request.addEventListener('error', () => reject(new ApiError(0, 'The file could not be sent; check your connection and try again.', [])));
    request.addEventListener('abort', () => reject(new ApiError(0, 'The upload was stopped.', [])));
  });
  request.send(file);
  await done;
  onProgress(1);
  if (request.status === 401) {
    location.assign(`/dashboard/login?return=${encodeURIComponent(location.pathname + location.search)}`);
    throw new ApiError(401, 'Signed out', []);
  }
  let body: unknown;
  try {
    body = JSON.parse(request.responseText);
  } catch {
    throw new ApiError(request.status, `The service answered ${request.status}.`, []);
  }
  if (request.status !== 200) {
    const errors = (body as { errors?: Array<{ type: string; friendly: string }> }).errors ?? [];
    throw new ApiError(request.status, errors.map((error) => error.friendly).join('; ') || `The service answered ${request.status}.`, errors.map((error) => error.type));
  }
  return (body as { data: ImportReport }).data;
}
