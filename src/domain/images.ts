// Images the service hosts, so that avatars and banners outlive the links people have at hand
// (a Discord attachment link expires within a day). What an upload may be, what it becomes, where
// it is served and what a system may keep. The decoding itself is src/images/ (sharp); storage is
// db/repositories/images.ts.
import { z } from 'zod';

/** What an image is for, and the long side it is scaled down to (what Discord shows). */
export const IMAGE_PURPOSES = { avatar: 1024, banner: 2048 } as const;
export type ImagePurpose = keyof typeof IMAGE_PURPOSES;
export const ImagePurpose = z.enum(Object.keys(IMAGE_PURPOSES) as [ImagePurpose, ...ImagePurpose[]]);

/** The multipart part of an upload that carries the file. */
export const IMAGE_UPLOAD_PART = 'file';

/** Uploads larger than this are refused before they are decoded (413). */
export const MAX_UPLOAD_BYTES = 8 * 1024 * 1024;
/** Decompression bombs: more pixels than this (one frame) are refused unread (422). */
export const MAX_IMAGE_PIXELS = 40_000_000;
/** The formats accepted, by their bytes (never by a file name or a declared type). */
export const ACCEPTED_IMAGE_FORMATS = ['png', 'jpeg', 'webp', 'gif'] as const;
/** What a system may keep. */
export const IMAGE_QUOTA = { images: 200, bytes: 100 * 1024 * 1024 } as const;
/** An upload nothing refers to is kept this long (time to put its URL in a field). */
export const UNREFERENCED_IMAGE_GRACE_MS = 24 * 3_600_000;

/** Stored images are WebP (animated when the upload was an animated GIF or WebP). */
export const IMAGE_CONTENT_TYPE = 'image/webp';
/** An image's address: 43 base64url characters (a keyed SHA-256). */
const ADDRESS = '[A-Za-z0-9_-]{43}';
export const IMAGE_PATH_PREFIX = '/images/';
const IMAGE_FILE = new RegExp(`^(${ADDRESS})\\.webp$`);
const IMAGE_URL_PATH = new RegExp(`/images/(${ADDRESS})\\.webp(?![A-Za-z0-9_-])`, 'g');

/** The path an image is served at. */
export function imagePath(address: string): string {
  return `${IMAGE_PATH_PREFIX}${address}.webp`;
}

/** The address a served file name (`<address>.webp`) names, if it is one. */
export function addressOfFile(file: string): string | undefined {
  return IMAGE_FILE.exec(file)?.[1];
}

/** Every hosted image address that field values (URLs, JSON of per-server maps) refer to. */
export function imageAddressesIn(values: Iterable<string | null>): Set<string> {
  const found = new Set<string>();
  for (const value of values) {
    if (!value) continue;
    for (const match of value.matchAll(IMAGE_URL_PATH)) found.add(match[1] as string);
  }
  return found;
}

export const UploadedImage = z
  .strictObject({
    url: z.string().describe('Where the image is served: put it in an avatar or banner field.'),
    width: z.number().int(),
    height: z.number().int(),
    bytes: z.number().int().describe('The stored (processed) size.'),
  })
  .meta({ id: 'UploadedImage' });
export type UploadedImage = z.infer<typeof UploadedImage>;

export const StoredImage = UploadedImage.extend({
  purpose: ImagePurpose,
  createdAt: z.string(),
}).meta({ id: 'StoredImage' });
export type StoredImage = z.infer<typeof StoredImage>;
