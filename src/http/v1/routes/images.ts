// Images the service hosts (domain/images.ts): uploaded as multipart/form-data, processed
// (images/process.ts), stored once per system within its quota, and listed for their owner. They
// are served outside /v1 (http/image-serving.ts), at a stable public path.
import multipart from '@fastify/multipart';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Kysely } from 'kysely';
import { z } from 'zod';
import { listImages, storeImage } from '../../../db/repositories/images.js';
import type { Schema } from '../../../db/tables.js';
import { IMAGE_UPLOAD_PART, ImagePurpose, imagePath, MAX_UPLOAD_BYTES, StoredImage, UploadedImage } from '../../../domain/images.js';
import { isOwner } from '../../../domain/privacy.js';
import { Problem } from '../../../domain/problems.js';
import { processImage } from '../../../images/process.js';
import { sha256Bytes, type StorageCrypto } from '../../../security/crypto.js';
import { NoQuery, UserParams } from '../params.js';
import { errorResponses, securityAnyOf } from '../route-schema.js';
import { targetOf } from '../target.js';

export interface ImageRoutesOptions {
  db: Kysely<Schema>;
  crypto: StorageCrypto;
  /** Where images are served (PUBLIC_URL): answers carry absolute URLs. */
  publicUrl: string;
}

const UploadQuery = z.strictObject({
  purpose: ImagePurpose.optional().describe('avatar (default): scaled to at most 1024 pixels on its long side; banner: 2048.'),
});

export const imageRoutes: FastifyPluginAsyncZod<ImageRoutesOptions> = async (app, { db, crypto, publicUrl }) => {
  // Multipart here alone: the rest of /v1 takes JSON only.
  await app.register(multipart, { limits: { fileSize: MAX_UPLOAD_BYTES, files: 1, fields: 0, parts: 1, headerPairs: 50 } });
  const urlOf = (address: string) => new URL(imagePath(address), publicUrl).href;

  app.post(
    '/images',
    {
      config: { scope: { anyOf: ['alters:write', 'system:write'] }, writes: true },
      schema: {
        tags: ['Images'],
        summary: 'Upload an image',
        description: [
          `A \`multipart/form-data\` body with the image in a part named \`${IMAGE_UPLOAD_PART}\` (and nothing else). The image is checked by its bytes (PNG, JPEG, WebP or GIF, else 415), at most ${MAX_UPLOAD_BYTES / 1024 / 1024} MiB (413) and 40 megapixels (422), turned upright, stripped of every bit of metadata (a phone photo’s location included), scaled down to what Discord shows (\`purpose=avatar\`: 1024 pixels on the long side, \`banner\`: 2048) and stored as WebP (an animated GIF stays animated).`,
          '',
          'Answers 201 with the URL to put in an avatar, banner or proxy-avatar field (on this service’s public address); the same image uploaded again by the same system answers 200 with the same URL. A system keeps at most 200 images and 100 MiB (409 `image-quota`); an image no field of the system uses is removed a day after its upload, or once the last field using it changes. Needs `alters:write` or `system:write`.',
        ].join('\n'),
        security: securityAnyOf('alters:write', 'system:write'),
        params: UserParams,
        querystring: UploadQuery,
        response: { 200: z.strictObject({ data: UploadedImage }), 201: z.strictObject({ data: UploadedImage }), ...errorResponses(404, 409, 413, 415, 422) },
      },
    },
    async (request, reply) => {
      const { system } = targetOf(request);
      const upload = await readUpload(request);
      const purpose = request.query.purpose ?? 'avatar';
      const image = await processImage(upload, purpose);
      // Keyed: an address cannot be worked out from a copy of the image, and each system has its own.
      const address = crypto.lookupHash('image', `${system.id}:${sha256Bytes(image.data)}`);
      const { created } = await storeImage(db, {
        systemId: system.id,
        address,
        purpose,
        width: image.width,
        height: image.height,
        data: image.data,
        now: Date.now(),
      });
      return reply.code(created ? 201 : 200).send({ data: { url: urlOf(address), width: image.width, height: image.height, bytes: image.data.length } });
    },
  );

  app.get(
    '/images',
    {
      config: { scope: { anyOf: ['alters:read', 'system:read'] } },
      schema: {
        tags: ['Images'],
        summary: 'Your images',
        description: 'Every image your system keeps, newest first, with its size. Owner only: which images a system holds is its own business (each is public at its URL, which only fields show).',
        security: securityAnyOf('alters:read', 'system:read'),
        params: UserParams,
        querystring: NoQuery,
        response: { 200: z.strictObject({ data: z.array(StoredImage) }), ...errorResponses(404) },
      },
    },
    async (request) => {
      const { viewer, system } = targetOf(request);
      if (!isOwner(viewer, system.id)) throw new Problem('not-matching-oauth', 'a system’s images are listed for its owner only; use @me');
      const rows = await listImages(db, system.id);
      return {
        data: rows.map((row) => ({
          url: urlOf(row.address),
          width: row.width,
          height: row.height,
          bytes: row.bytes,
          purpose: row.purpose,
          createdAt: new Date(row.createdAt).toISOString(),
        })),
      };
    },
  );
};

/** The one file part, whole; the body's problems as Problems. */
async function readUpload(request: Parameters<typeof targetOf>[0]): Promise<Buffer> {
  if (!request.isMultipart()) {
    throw new Problem('unsupported-media-type', `send the image as multipart/form-data, in a part named ${IMAGE_UPLOAD_PART}`);
  }
  try {
    const part = await request.file();
    if (!part || part.fieldname !== IMAGE_UPLOAD_PART) {
      throw new Problem('validation', `send the image in a multipart part named ${IMAGE_UPLOAD_PART}`, IMAGE_UPLOAD_PART);
    }
    const bytes = await part.toBuffer();
    if (part.file.truncated) throw tooLarge();
    return bytes;
  } catch (error) {
    if (error instanceof Problem) throw error;
    const code = (error as { code?: string }).code;
    if (code === 'FST_REQ_FILE_TOO_LARGE') throw tooLarge();
    throw new Problem('validation', 'the multipart body could not be read: send one part named file', IMAGE_UPLOAD_PART);
  }
}

const tooLarge = () => new Problem('body-too-large', `an image may be at most ${MAX_UPLOAD_BYTES / 1024 / 1024} MiB`, IMAGE_UPLOAD_PART);
