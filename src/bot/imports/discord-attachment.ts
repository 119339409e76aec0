// Downloading a file a user gave the bot: a slash command's attachment, or a pasted link to one.
// Only Discord's CDN is ever contacted (a pasted link is user input: anything else would let a user
// make the bot fetch internal addresses, SSRF), over the scheme and port the allowed origin names,
// without following redirects, within a byte cap and a time limit.
import { request } from '../http.js';
import { ApiError } from '../api-client.js';

/** Where Discord serves attachments. */
export const DISCORD_CDN_ORIGINS: readonly string[] = ['https://cdn.discordapp.com', 'https://media.discordapp.net'];

/** Attachment paths on those hosts: message attachments, and the files given to slash commands. */
const ATTACHMENT_PATH = /^\/(?:ephemeral-)?attachments\/\d{1,20}\/\d{1,20}\/[^/]+$/;

/**
 * The origins attachments may come from: Discord's CDN, plus the origin of the configured Discord
 * API, which is where a Discord-compatible server other than discord.com (the test fake) serves
 * them. The operator already trusts that origin with the bot token.
 */
export function attachmentOrigins(discordApiBase: string): readonly string[] {
  return [...new Set([...DISCORD_CDN_ORIGINS, new URL(discordApiBase).origin])];
}

export type LinkCheck = { ok: true; url: URL } | { ok: false; reason: string };

/** Whether `text` (a pasted link, `<…>` wrapping allowed) names a Discord attachment. Pure. */
export function checkAttachmentLink(text: string, origins: readonly string[]): LinkCheck {
  const trimmed = text.trim();
  const unwrapped = trimmed.startsWith('<') && trimmed.endsWith('>') ? trimmed.slice(1, -1).trim() : trimmed;
  let url: URL;
  try {
    url = new URL(unwrapped);
  } catch {
    return { ok: false, reason: 'That is not a link. Paste the link of the file you uploaded to Discord (right-click or long-press it, then “Copy link”).' };
  }
  if (!origins.includes(url.origin) || url.username !== '' || url.password !== '') {
    return { ok: false, reason: 'Only links to files uploaded to Discord (cdn.discordapp.com or media.discordapp.net) can be imported. Upload the file to Discord, or attach it to `/import`.' };
  }
  if (!ATTACHMENT_PATH.test(url.pathname)) {
    return { ok: false, reason: 'That link is not a Discord attachment. Copy the link of the uploaded file itself.' };
  }
  url.hash = '';
  return { ok: true, url };
}

export interface DownloadOptions {
  origins: readonly string[];
  maxBytes: number;
  timeoutMs: number;
}

const MIB = 1024 * 1024;
export const formatBytes = (bytes: number) => (bytes >= MIB ? `${Math.round((bytes / MIB) * 10) / 10} MiB` : `${Math.ceil(bytes / 1024)} KiB`);

/** Drops a response body unread (undici reports the abort as an error: expected, so ignored). */
function discard(body: NodeJS.ReadableStream & { destroy(): void }): void {
  body.on('error', () => undefined);
  body.destroy();
}

function refused(message: string): ApiError {
  return new ApiError('problem', 400, 'attachment', message);
}

/** The bytes at `url`, a Discord attachment; a friendly ApiError for anything else. */
export async function downloadAttachment(url: string, options: DownloadOptions): Promise<Buffer> {
  const checked = checkAttachmentLink(url, options.origins);
  if (!checked.ok) throw refused(checked.reason);
  const tooBig = refused(`That file is too big to import: at most ${formatBytes(options.maxBytes)}.`);
  const signal = AbortSignal.timeout(options.timeoutMs);
  let response;
  try {
    // undici's request never follows redirects: a 3xx is answered as it is, and refused below.
    response = await request(checked.url, { method: 'GET', signal, headersTimeout: options.timeoutMs, bodyTimeout: options.timeoutMs });
  } catch {
    throw refused(signal.aborted ? 'Discord took too long to send the file. Try again in a moment.' : 'The file could not be downloaded from Discord. Try again in a moment.');
  }
  const { statusCode, headers, body } = response;
  if (statusCode !== 200) {
    discard(body);
    if (statusCode === 404 || statusCode === 403 || statusCode === 410) {
      throw refused('Discord no longer has that file (attachment links expire). Upload it again, or attach it to `/import`.');
    }
    throw refused(statusCode >= 300 && statusCode < 400 ? 'That link leads somewhere other than the file itself. Copy the link of the uploaded file.' : `Discord would not send the file (HTTP ${statusCode}). Try again in a moment.`);
  }
  const declared = Number(headers['content-length']);
  if (Number.isFinite(declared) && declared > options.maxBytes) {
    discard(body);
    throw tooBig;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      size += (chunk as Buffer).length;
      if (size > options.maxBytes) {
        discard(body);
        throw tooBig;
      }
      chunks.push(chunk as Buffer);
    }
  } catch (error) {
    if (error === tooBig) throw error;
    throw refused(signal.aborted ? 'Discord took too long to send the file. Try again in a moment.' : 'The download from Discord broke off. Try again in a moment.');
  }
  return Buffer.concat(chunks, size);
}
