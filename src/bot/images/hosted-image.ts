// An image a person gives an edit command: a file attached to the command, or a link. Files, and
// Discord attachment links (signed to expire within a day, so an avatar set to one breaks), are
// copied to the service's image host at once and the field gets the hosted URL; any other link is
// passed on as typed (the service checks it).
import type { Attachment, ChatInputCommandInteraction, SlashCommandSubcommandBuilder } from 'discord.js';
import { MAX_UPLOAD_BYTES, type ImagePurpose } from '../../domain/images.js';
import { isExpiringAttachmentLink } from '../../domain/image-url.js';
import type { ApiClient } from '../api-client.js';
import { checkAttachmentLink, downloadAttachment } from '../imports/discord-attachment.js';
import { CLEAR } from '../options.js';

const DOWNLOAD_TIMEOUT_MS = 30_000;

export interface ImageChoice {
  /** The field's new value: a URL, null to clear it, undefined to leave it. */
  value: string | null | undefined;
  /** Whether the image was copied to the service (so the person is told). */
  copied: boolean;
}

export interface GivenImage {
  typed: string | null;
  file: Attachment | null;
  purpose: ImagePurpose;
}

/** The value of one image field from what the command was given; uploads through `token`. */
export async function chooseImage(api: ApiClient, token: string, origins: readonly string[], given: GivenImage): Promise<ImageChoice> {
  const source = given.file?.url ?? (given.typed !== null && given.typed !== CLEAR && isCopyable(given.typed, origins) ? given.typed : undefined);
  if (source !== undefined) {
    const bytes = await downloadAttachment(source, { origins, maxBytes: MAX_UPLOAD_BYTES, timeoutMs: DOWNLOAD_TIMEOUT_MS });
    const uploaded = await api.uploadImage(token, bytes, given.purpose);
    return { value: uploaded.url, copied: true };
  }
  if (given.typed === null) return { value: undefined, copied: false };
  return { value: given.typed === CLEAR ? null : given.typed, copied: false };
}

/** A Discord attachment link the bot may download (Discord's CDN, or the configured API's origin). */
function isCopyable(typed: string, origins: readonly string[]): boolean {
  return isExpiringAttachmentLink(typed.trim()) || checkAttachmentLink(typed, origins).ok;
}

/** The sentence that tells what was copied, for a command's answer. */
export function copiedNote(fields: string[]): string {
  if (fields.length === 0) return '';
  return ` The ${fields.join(' and ')} ${fields.length === 1 ? 'was' : 'were'} copied here, so ${fields.length === 1 ? 'it keeps' : 'they keep'} working after Discord’s link expires.`;
}

/** An image field of a command: its URL option (`avatar`), the file option beside it (`avatar-file`), the API field. */
export interface ImageOption {
  option: string;
  field: string;
  purpose: ImagePurpose;
  /** What it is, for the file option's description and the answer (`avatar`). */
  label: string;
}

export const fileOptionOf = (option: string) => `${option}-file`;

/** The file options of `images`, after the command's other options. */
export function addImageFileOptions(sub: SlashCommandSubcommandBuilder, images: readonly ImageOption[]): SlashCommandSubcommandBuilder {
  for (const { option, label } of images) {
    sub.addAttachmentOption((o) => o.setName(fileOptionOf(option)).setDescription(`The ${label} as an image file (PNG, JPEG, WebP or GIF), kept here`));
  }
  return sub;
}

/** The edit of `images`' fields the command was given (files and attachment links uploaded first), and which were copied. */
export async function imagePatch(
  interaction: ChatInputCommandInteraction,
  { api, attachmentOrigins }: { api: ApiClient; attachmentOrigins: readonly string[] },
  token: string,
  images: readonly ImageOption[],
): Promise<{ patch: Record<string, string | null>; copied: string[] }> {
  const patch: Record<string, string | null> = {};
  const copied: string[] = [];
  for (const { option, field, purpose, label } of images) {
    const given = { typed: interaction.options.getString(option), file: interaction.options.getAttachment(fileOptionOf(option)), purpose };
    const { value, copied: wasCopied } = await chooseImage(api, token, attachmentOrigins, given);
    if (value !== undefined) patch[field] = value;
    if (wasCopied) copied.push(label);
  }
  return { patch, copied };
}
