// Import a PluralKit or Tupperbox export into your system; export your system as a PluralKit
// file. Thin: the body streams into the import worker (src/workers/) as it arrives, where
// src/domain/import/ reads and plans it; the imports repository applies it in one transaction.
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { errorCodes, type FastifyError, type FastifyReply, type FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod, ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Kysely } from 'kysely';
import { z } from 'zod';
import { importStore, loadExportData } from '../../../db/repositories/imports.js';
import { importRequestHash, importSystem } from '../../../domain/import/import-system.js';
import type { Schema } from '../../../db/tables.js';
import { buildExport, exportJson } from '../../../domain/import/export.js';
import { IMPORT_MODES, ImportReport, MAX_IMPORT_BYTES } from '../../../domain/import/model.js';
import { isOwner } from '../../../domain/privacy.js';
import { Problem } from '../../../domain/problems.js';
import { UserParams } from '../params.js';
import { sendProblem, v1ErrorHandler } from '../problem-responses.js';
import { errorResponses, security } from '../route-schema.js';
import { importThread, type ImportUpload } from '../../../workers/import-thread.js';
import { targetOf } from '../target.js';

const MIB = MAX_IMPORT_BYTES / (1024 * 1024);

const flag = (what: string) =>
  z
    .enum(['true', 'false'], { error: 'must be true or false' })
    .default('false')
    .transform((value) => value === 'true')
    .describe(what);

export const ImportQuery = z.strictObject({
  mode: z
    .enum(IMPORT_MODES, { error: `must be one of ${IMPORT_MODES.join(', ')}` })
    .default('merge')
    .describe('merge (default): update the alters and tags the file matches (by an earlier import of the same entity, else by name), create the rest. add: create everything, renaming taken names. replace: as merge, then delete the alters and tags the file does not have (and, with history, the switches whose time is not in it).'),
  dryRun: flag('true: answer the report without writing anything (a preview).'),
  history: flag('true: also import the front history (PluralKit switches, Simply Plural front history turned into switches), skipping times the system already has.'),
  customFronts: z
    .enum(['import', 'skip'], { error: 'must be import or skip' })
    .default('import')
    .describe('Simply Plural only. import (default): custom fronts ("Blurry", "Asleep") become alters in a tag named "Custom fronts", so the front history stays whole (they count towards the alter limit). skip: they are left out, and their front history leaves gaps.'),
  friendsArePublic: flag('Simply Plural only. true: members, custom fronts, groups and fields friends could see in Simply Plural become public here. false (default): everything is imported private.'),
});

const ImportHeaders = z.looseObject({
  'idempotency-key': z
    .string()
    .regex(/^[\x20-\x7e]{1,100}$/, 'must be 1 to 100 visible ASCII characters')
    .optional()
    .describe('Makes a retried applied import safe: a second import of the same system with the same key and request answers the first report (200) without importing again; with another file or options it is refused (409). Ignored on dry runs.'),
});

const ImportBody = z
  .unknown()
  .describe(`The export file as it is: a PluralKit export (\`pk;export\`, version 2 or older), a Tupperbox export (\`tul!export\`) or a Simply Plural export (\`export.json\`). Sent as JSON (any JSON media type; read as UTF-8 whatever the charset says, a byte-order mark is ignored), at most ${MIB} MiB. Integers too large for a double (Discord ids in \`accounts\`) are read exactly, and accounts are never linked from a file.`);

/** JSON media types: application/json, text/json, application/<anything>+json, with any parameters. */
const JSON_MEDIA_TYPE = /^\s*(?:application|text)\/(?:[\w.-]+\+)?json\s*(?:;|$)/i;

/** SHA-256 of each request's raw body, for the Idempotency-Key check. */
const bodyDigests = new WeakMap<FastifyRequest, string>();
/** Each request's upload to the import worker, dropped when the request ends without reading it. */
const uploads = new WeakMap<FastifyRequest, ImportUpload>();

/**
 * The body streamed into the import worker as it arrives (json-stream.ts reads it there), hashed
 * on the way; refused (413, the connection closed) as soon as it passes the cap, the rest unread.
 */
function streamBody(request: FastifyRequest, payload: NodeJS.ReadableStream, done: (error: Error | null, body?: unknown) => void): void {
  const declared = Number(request.headers['content-length']);
  if (declared > MAX_IMPORT_BYTES) return done(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE());
  const upload = importThread().upload();
  uploads.set(request, upload);
  const hash = createHash('sha256');
  let received = 0;
  const stop = () => {
    payload.removeListener('data', onData);
    payload.removeListener('end', onEnd);
    payload.removeListener('error', onError);
  };
  const onData = (chunk: Buffer | string) => {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    received += bytes.length;
    if (received > MAX_IMPORT_BYTES) {
      stop();
      upload.abort();
      return done(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE());
    }
    hash.update(bytes);
    upload.write(bytes);
  };
  const onEnd = () => {
    stop();
    if (!Number.isNaN(declared) && received !== declared) {
      upload.abort();
      return done(new errorCodes.FST_ERR_CTP_INVALID_CONTENT_LENGTH());
    }
    bodyDigests.set(request, hash.digest('hex'));
    done(null, upload);
  };
  const onError = (error: Error) => {
    stop();
    upload.abort();
    done(Object.assign(error, { statusCode: 400 }));
  };
  payload.on('data', onData);
  payload.on('end', onEnd);
  payload.on('error', onError);
  payload.resume();
}

function tooLarge(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
    return sendProblem(reply, new Problem('body-too-large', `the file is larger than ${MIB} MiB, the most an import takes`));
  }
  return v1ErrorHandler(error, request, reply);
}

const CHUNK = 64 * 1024;

/** The pieces gathered into writes of about CHUNK characters (an entity's piece may be larger). */
function* inChunks(pieces: Iterable<string>): Generator<string> {
  let pending: string[] = [];
  let length = 0;
  for (const piece of pieces) {
    pending.push(piece);
    length += piece.length;
    if (length >= CHUNK) {
      yield pending.join('');
      pending = [];
      length = 0;
    }
  }
  if (pending.length > 0) yield pending.join('');
}

const ExportQuery = z.strictObject({
  profileFieldsInDescription: z
    .enum(['true', 'false'])
    .optional()
    .describe(
      '`true`: each alter’s custom profile fields are appended to its PluralKit description (`**Name:** value`, in the system’s order; only fields shown wherever the description is, or all when the description is private; cut to PluralKit’s 1,000 characters with a warning). Our own key keeps them either way. Default false.',
    ),
});

export const importExportRoutes: FastifyPluginAsyncZod<{ db: Kysely<Schema> }> = async (app, { db }) => {
  // The import has its own body parser: a larger cap, any JSON media type, exact big integers.
  await app.register(async (imports) => {
    imports.setErrorHandler(tooLarge);
    imports.removeAllContentTypeParsers();
    imports.addContentTypeParser(JSON_MEDIA_TYPE, { bodyLimit: MAX_IMPORT_BYTES }, streamBody);
    // A request refused after its body came (a bad query, a missing scope) drops its upload.
    imports.addHook('onResponse', async (request) => uploads.get(request)?.abort());

    imports.withTypeProvider<ZodTypeProvider>().post(
      '/system/import',
      {
        config: { scope: ['alters:write', 'system:write'], writes: true },
        schema: {
          tags: ['Import and export'],
          summary: 'Import a PluralKit, Tupperbox or Simply Plural export',
          description: [
            'Reads the file, plans the import against your system and, unless `dryRun=true`, applies it in one transaction: all of it or nothing. A preview and an applied import answer the same report.',
            '',
            '- **Per field, per entity**: a bad field (a colour that is not hex, a non-https link, text over our limits) is dropped or shortened and named in `warnings`; an entity without a usable id or name is listed in `skipped` by its id and name in the file. Only the whole file is refused (422 `invalid-import`, 400 `invalid-json`, 413, or 409 when the alters (2,000) or tags (500) would not fit, or over 100,000 switches, or when applying it would grow the system’s alters past 16 Mi characters of text, `system-too-large`), and then nothing is written.',
            '- **Matching** (merge, replace): an alter imported before from the same source entity (PluralKit member id, Tupperbox tupper id, Simply Plural member id; a Simply Plural member’s `pkId` links its alter to that PluralKit member too) is that alter again, even renamed on either side; then, for a Simply Plural member with a `pkId`, the alter linked to that PluralKit member (by a PluralKit import or an earlier `pkId`; only the first member naming an id, the others warned); otherwise a username equal ignoring case and look-alike forms. Each pass goes over the whole file first, and no alter is matched twice. Names become usernames by dropping spaces, `@`, `\\`, `/` and invisible characters; a taken name gets `-2`, `-3`, … (listed in `renames`).',
            '- **Re-importing** the same file creates nothing new: alters and tags match, switches are skipped by their exact time, message counts only grow.',
            '- **Mapping**: PluralKit privacy maps to the privacy bits, groups to tags, per-member keep_proxy to the system flag when all members agree. Birthdays, `tts`, `autoproxy_enabled`, colours of systems, `config` other than the latch timeout, Tupperbox group tags and differing per-tupper tags are not imported (a warning says so). `accounts` and `webhook_url` are never read. A file we exported carries our own fields under `switchboard` and imports losslessly.',
            '- **Switches** are recorded as made by the calling client, and not announced as events (they are history). The import sends the events the API’s writes of the same changes send, in its transaction: `profile-field.created` and `.deleted` first, then the alters’ (an alter whose custom profile field values or tag memberships alone change is an `alter.updated`, counted `updated`, as an edit of them or of its `tagIds` is; its tags send no `tag.updated`, as that edit sends none), tags’ and system’s; a preview sends none.',
            '- **Simply Plural** (`export.json` from its export email, including the flat-array files of mid-2022, whose documents are told apart by shape with a warning): members become alters; custom fronts alters in a tag named "Custom fronts" (`customFronts=skip` leaves them out); groups tags (nesting flattened, the emoji put before the display name, loops broken with a warning); front history (with `history=true`) switches, each interval rule (open, overlapping, swapped or missing ends, times as text, deleted members) counted in `warnings`. Avatars: external https links kept, uploads to Simply Plural\'s own host (gone) dropped and counted, nothing fetched. Everything is private unless `friendsArePublic=true`. Comments, notes, board messages, polls, reminders, chat and friends are not imported and are counted in `notImported`; custom fields become profile fields with the members\' values (matched by name to the system’s; `counts.profileFields` says how many were created, matched and, in replace mode, deleted: replace deletes the fields a file that carries field definitions lacks, and a Simply Plural file always does). API tokens, push tokens, IP addresses and friends\' ids in the file are never read, stored or logged. A file without a usable member is refused (422 `invalid-import`, naming why).',
          ].join('\n'),
          security: security('alters:write', 'system:write'),
          params: UserParams,
          querystring: ImportQuery,
          headers: ImportHeaders,
          body: ImportBody,
          response: { 200: z.strictObject({ data: ImportReport }), ...errorResponses(404, 409, 413, 415, 422) },
        },
      },
      async (request, reply) => {
        const { viewer, system } = targetOf(request);
        const read = { customFronts: request.query.customFronts, friendsArePublic: request.query.friendsArePublic };
        // No body at all (no media type) reads as an empty file, refused as such.
        const file = await (uploads.get(request) ?? importThread().upload()).finish(read);
        const options = { mode: request.query.mode, dryRun: request.query.dryRun, history: request.query.history };
        const key = request.headers['idempotency-key'];
        const idempotency = key === undefined || options.dryRun ? undefined : { key, requestHash: importRequestHash(bodyDigests.get(request) ?? '', options, read) };
        let outcome;
        try {
          outcome = await importSystem(importStore(db, system.id, viewer.userId), { file, options, clientId: viewer.clientId, idempotency, now: Date.now() });
        } finally {
          await file.release();
        }
        if (outcome.replayed) reply.header('idempotent-replayed', 'true');
        return { data: outcome.report };
      },
    );
  });

  app.get(
    '/system/export',
    {
      config: { scope: ['system:read', 'alters:read'] },
      schema: {
        tags: ['Import and export'],
        summary: 'Export your system as a PluralKit file',
        description: [
          'Your whole system as a PluralKit version 2 export that PluralKit’s importer accepts (`pk;import`): colours without `#`, only https links of at most 256 characters, proxy tags that fit PluralKit’s 100 characters with the text, the system tag cut to 79, `switches` always present (newest first); no `config` and no `accounts`, so an import into PluralKit never resets its settings. Alters keep the PluralKit ids they were imported with.',
          '',
          'Everything PluralKit has no place for (usernames and display names apart, per-server names and avatars, alter mode, flags, the exact privacy bits, the system’s per-server tags and settings, links PluralKit refuses) is under the `switchboard` key, which this service’s import reads back: export, then import into a fresh system, and nothing is lost. What PluralKit cannot take is listed in `switchboard.warnings`. Owner only; sent as a download (`system.json`), streamed in chunks (no `content-length`) as it is written, member by member.',
        ].join('\n'),
        security: security('system:read', 'alters:read'),
        params: UserParams,
        querystring: ExportQuery,
        response: { 200: z.record(z.string(), z.unknown()).describe('A PluralKit v2 export with a `switchboard` key.'), ...errorResponses(404) },
      },
    },
    async (request, reply) => {
      const { viewer, system } = targetOf(request);
      if (!isOwner(viewer, system.id)) throw new Problem('not-matching-oauth', 'only the owner can export a system; use @me');
      const { file } = buildExport(await loadExportData(db, system.id), { profileFieldsInDescription: request.query.profileFieldsInDescription === 'true' });
      // Streamed (chunked), with the socket's back-pressure: the file is never one string.
      reply.header('content-disposition', 'attachment; filename="system.json"').type('application/json; charset=utf-8');
      const stream = Readable.from(inChunks(exportJson(file)), { objectMode: false });
      // The reply's type is the documented answer (the file's object); Fastify sends a stream as it is.
      return reply.send(stream as unknown as Record<string, unknown>);
    },
  );
};
