// pg (node-postgres), loaded when a PostgreSQL database is opened: on SQLite, the default, it is
// never used, and loading it costs every start about 15 ms and 3 MB. pg is CommonJS, so it loads
// synchronously here and is the same module object an `import pg from 'pg'` elsewhere gets.
import { createRequire } from 'node:module';
import type Pg from 'pg';

const require = createRequire(import.meta.url);
let pg: typeof Pg | undefined;

export function loadPg(): typeof Pg {
  return (pg ??= require('pg') as typeof Pg);
}
