// Hosted images at their public path, /images/<address>.webp: no authentication (an avatar is
// shown by Discord and browsers to anyone), cached for a year by browsers and any CDN in front
// (an address names exactly one content, so it never changes), with an ETag for revalidation.
import type { FastifyPluginAsync } from 'fastify';
import type { Kysely } from 'kysely';
import { readImage } from '../db/repositories/images.js';
import type { Schema } from '../db/tables.js';
import { addressOfFile, IMAGE_PATH_PREFIX } from '../domain/images.js';
import { ifNoneMatch } from './v1/conditional-get.js';

const IMMUTABLE = 'public, max-age=31536000, immutable';

export const imageServing: FastifyPluginAsync<{ db: Kysely<Schema> }> = async (app, { db }) => {
  app.get<{ Params: { file: string } }>(`${IMAGE_PATH_PREFIX}:file`, async (request, reply) => {
    const address = addressOfFile(request.params.file);
    const image = address && (await readImage(db, address));
    if (!address || !image) return reply.code(404).header('cache-control', 'no-store').type('text/plain; charset=utf-8').send('no such image');
    const etag = `"${address}"`;
    reply.header('etag', etag).header('cache-control', IMMUTABLE).header('cross-origin-resource-policy', 'cross-origin');
    if (ifNoneMatch(request.headers['if-none-match'], etag)) return reply.code(304).send();
    return reply.type(image.contentType).send(image.data);
  });
};
