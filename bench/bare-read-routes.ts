// The bare read routes the read rows compare with: a plain Fastify app answering the same rows
// straight from the service's SQLite file, the physical limit of rows 1, 1c and 2.
import SqliteDatabase from 'better-sqlite3';
import Fastify from 'fastify';
import { freePort } from '../test/support/server.js';

export interface BareReadRoutes {
  /** `/alters/:id` (row 1), `/turn/alters/:id` (row 1c), `/systems/:system/alters` (row 2). */
  url: string;
  close(): Promise<void>;
}

export async function startBareReadRoutes(databaseFile: string): Promise<BareReadRoutes> {
  const sqlite = new SqliteDatabase(databaseFile, { readonly: true });
  const one = sqlite.prepare('select * from alters where id = ?');
  const page = sqlite.prepare('select * from alters where system_id = ? order by id limit 250');
  const app = Fastify({ logger: false });
  app.get<{ Params: { id: string } }>('/alters/:id', async (request) => one.get(Number(request.params.id)));
  app.get<{ Params: { system: string } }>('/systems/:system/alters', async (request) => page.all(Number(request.params.system)));
  // The same point read with its requests held as the service holds them on SQLite (the requests of
  // a turn of the event loop go on together in its check phase: db/changes/remote.ts), for row 1c:
  // like for like with row 1, without anything else the service does.
  let turn: Array<() => void> = [];
  const release = () => {
    const waiting = turn;
    turn = [];
    for (const done of waiting) done();
  };
  const holdForTurn = (_request: unknown, _reply: unknown, done: () => void) => {
    turn.push(done);
    if (turn.length === 1) setImmediate(release);
  };
  app.get<{ Params: { id: string } }>('/turn/alters/:id', { onRequest: holdForTurn }, async (request) => one.get(Number(request.params.id)));
  const port = await freePort();
  await app.listen({ port, host: '127.0.0.1' });
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      await app.close();
      sqlite.close();
    },
  };
}
