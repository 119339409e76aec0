// The SQLite driver: better-sqlite3 under Kysely, with reads and writes on separate connections
// and group commit.
//
// - Reads outside a transaction run on a connection of their own. In WAL mode it sees the last
//   commit and never waits for a writer, so a read does not queue behind a transaction that is
//   awaiting something.
// - Writes share one connection, one transaction at a time (SQLite has a single writer). With
//   `synchronous=FULL` every COMMIT waits for an fsync, and better-sqlite3 waits inside the event
//   loop, so one fsync per request bounded the write path. Group commit: each Kysely transaction
//   (or single write) is a savepoint inside a physical transaction that stays open while more
//   writes are queued in the same turn of the event loop; the physical COMMIT, one fsync, ends the
//   batch, and only then does any transaction of the batch resolve. An acknowledged write has
//   reached the disk, as before; concurrent writes share the fsync.
// - A transaction that fails rolls back to its savepoint and leaves the others of its batch. If
//   SQLite abandons the whole physical transaction (an I/O error, a full disk), every transaction
//   of the batch fails with it: none has been acknowledged yet.
// - Nothing outside the write connection sees a batch before its COMMIT: reads run on the other
//   connection, and the cache notes of db/changes/ are published when the transaction resolves.
// An in-memory database cannot be opened twice, so it runs on one connection without group commit.
import SqliteDatabase from 'better-sqlite3';
import {
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  type Kysely,
  type QueryResult,
} from 'kysely';
import { isSchemaChange } from './schema-change.js';

/** A batch is committed at once when it reaches this many transactions or this age, so no write waits long. */
const MAX_BATCH_TRANSACTIONS = 256;
const MAX_BATCH_MS = 20;
const STATEMENT_CACHE_SIZE = 500;
const LOGICAL = 'switchboard_tx';
const MAX_IDLE_SESSIONS = 64;

export interface SqliteConnections {
  /** The write connection: what `PRAGMA data_version` must be read on (it moves only for other connections' commits). */
  writer: SqliteDatabase.Database;
  /** Physical commits and the transactions they carried, since the database was opened (the benchmark reports the ratio). */
  commits: CommitCounts;
}

export interface CommitCounts {
  commits: number;
  transactions: number;
}

export function openSqliteDialect(path: string): { dialect: Dialect; connections: SqliteConnections } {
  const memory = path === ':memory:';
  const writer = new SqliteDatabase(path);
  writer.pragma('journal_mode = WAL');
  // FULL: a commit that was acknowledged survives power loss, not only a process crash.
  writer.pragma('synchronous = FULL');
  writer.pragma('foreign_keys = ON');
  writer.pragma('busy_timeout = 5000');
  let reader: SqliteDatabase.Database | undefined;
  if (!memory) {
    reader = new SqliteDatabase(path);
    reader.pragma('busy_timeout = 5000');
    reader.pragma('query_only = ON');
  }
  const counts: CommitCounts = { commits: 0, transactions: 0 };
  const driver = new GroupCommitDriver(writer, reader, { groupCommit: !memory }, counts);
  const dialect: Dialect = {
    createDriver: () => driver,
    createQueryCompiler: () => new SqliteQueryCompiler(),
    createAdapter: () => new SqliteAdapter(),
    createIntrospector: <DB>(db: Kysely<DB>) => new SqliteIntrospector(db),
  };
  return { dialect, connections: { writer, commits: counts } };
}

interface Statement {
  readonly reader: boolean;
  readonly readonly: boolean;
  all(parameters: ReadonlyArray<unknown>): unknown[];
  run(parameters: ReadonlyArray<unknown>): SqliteDatabase.RunResult;
  iterate(parameters: ReadonlyArray<unknown>): IterableIterator<unknown>;
}

/**
 * Prepared statements kept by SQL text: Kysely prepares every query anew, and compiling SQL was
 * the largest single cost of a request in a CPU profile of the point read.
 */
class StatementCache {
  private readonly statements = new Map<string, Statement>();

  constructor(private readonly connection: SqliteDatabase.Database) {}

  get(sql: string): Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = fastRows(this.connection.prepare(sql));
      if (this.statements.size >= STATEMENT_CACHE_SIZE) this.statements.delete(this.statements.keys().next().value as string);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  clear(): void {
    this.statements.clear();
  }
}

/**
 * A statement whose rows are built by a function made for its columns. better-sqlite3 builds each
 * row object property by property, which took more than half of a 250-alter page's read (820 µs
 * against 360 µs for the same rows as arrays); an object literal with the columns in order is
 * built in one step and every row shares its shape. The literal's keys are the statement's column
 * names, quoted with JSON.stringify; nothing else goes into the generated code.
 */
function fastRows(statement: SqliteDatabase.Statement): Statement {
  if (!statement.reader) return statement as Statement;
  // The columns are read after a run: a statement prepared on a connection that has not seen the
  // latest schema yet is prepared again by SQLite when it runs, with the current columns.
  let width = -1;
  let toRow: (values: unknown[]) => unknown = (values) => values;
  const rowsOf = (rows: unknown[][]) => {
    if (rows.length > 0 && rows[0]?.length !== width) {
      const columns = statement.columns().map((column) => column.name);
      width = columns.length;
      toRow = new Function('values', `return { ${columns.map((name, i) => `${JSON.stringify(name)}: values[${i}]`).join(', ')} };`) as (values: unknown[]) => unknown;
    }
    return rows.map(toRow);
  };
  statement.raw(true);
  return {
    reader: true,
    readonly: statement.readonly,
    all: (parameters) => rowsOf(statement.all(parameters) as unknown[][]),
    run: (parameters) => statement.run(parameters),
    *iterate(parameters) {
      for (const values of statement.iterate(parameters) as IterableIterator<unknown[]>) yield rowsOf([values])[0];
    },
  };
}

function run<R>(statement: Statement, parameters: ReadonlyArray<unknown>): QueryResult<R> {
  if (statement.reader) return { rows: statement.all(parameters) as R[] };
  const { changes, lastInsertRowid } = statement.run(parameters);
  return { numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid), rows: [] };
}

interface Batch {
  /** Settles when the physical transaction has committed (or failed). */
  readonly durable: Promise<void>;
  resolve(): void;
  reject(error: unknown): void;
  transactions: number;
  readonly openedAt: number;
}

function newBatch(): Batch {
  let resolve!: () => void;
  let reject!: (error: unknown) => void;
  const durable = new Promise<void>((yes, no) => ((resolve = yes), (reject = no)));
  // A batch nobody waits for (only rolled-back transactions) must not be an unhandled rejection.
  durable.catch(() => undefined);
  return { durable, resolve, reject, transactions: 0, openedAt: performance.now() };
}

class GroupCommitDriver implements Driver {
  private readonly writerStatements: StatementCache;
  private readonly readerStatements: StatementCache | undefined;
  /** Who holds the write connection: one transaction at a time; the others wait in order. */
  private writerHeld = false;
  private readonly waiting: Array<() => void> = [];
  private batch: Batch | undefined;
  private flushScheduled = false;
  private readonly idleSessions: Session[] = [];
  private readonly control: Record<'begin' | 'savepoint' | 'release' | 'rollbackTo' | 'commit', SqliteDatabase.Statement>;

  constructor(
    private readonly writer: SqliteDatabase.Database,
    private readonly reader: SqliteDatabase.Database | undefined,
    private readonly options: { groupCommit: boolean },
    private readonly counts: CommitCounts,
  ) {
    this.writerStatements = new StatementCache(writer);
    // Prepared once: exec() parses its SQL every time, and these run for every write.
    this.control = {
      begin: writer.prepare('begin immediate'),
      savepoint: writer.prepare(`savepoint ${LOGICAL}`),
      release: writer.prepare(`release ${LOGICAL}`),
      rollbackTo: writer.prepare(`rollback to ${LOGICAL}`),
      commit: writer.prepare('commit'),
    };
    this.readerStatements = reader && new StatementCache(reader);
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    // Sessions are reused: a new one per query cost allocations here and in the wrapping driver
    // (db/changes/dialect.ts keeps a wrapper per connection object).
    return this.idleSessions.pop() ?? new Session(this);
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await this.beginLogical();
    (connection as Session).inTransaction = true;
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    (connection as Session).inTransaction = false;
    await this.commitLogical();
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    (connection as Session).inTransaction = false;
    this.rollbackLogical(new Error('a transaction of this commit batch failed to roll back alone'));
  }

  async savepoint(_connection: DatabaseConnection, name: string): Promise<void> {
    this.writer.exec(`savepoint ${quote(name)}`);
  }

  async rollbackToSavepoint(_connection: DatabaseConnection, name: string): Promise<void> {
    this.writer.exec(`rollback to ${quote(name)}`);
  }

  async releaseSavepoint(_connection: DatabaseConnection, name: string): Promise<void> {
    this.writer.exec(`release ${quote(name)}`);
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    const session = connection as Session;
    session.inTransaction = false;
    if (this.idleSessions.length < MAX_IDLE_SESSIONS) this.idleSessions.push(session);
  }

  async destroy(): Promise<void> {
    if (this.batch && !this.writerHeld) this.flush();
    this.reader?.close();
    this.writer.close();
  }

  /** A statement outside any transaction: a read on the read connection, a write as a transaction of its own. */
  async executeAlone<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const schemaChange = isSchemaChange(query.sql);
    if (!schemaChange && this.readerStatements) {
      const statement = this.readerStatements.get(query.sql);
      if (statement.readonly) return run<R>(statement, query.parameters);
    }
    await this.beginLogical();
    let result: QueryResult<R>;
    try {
      result = this.executeInTransaction<R>(query);
    } catch (error) {
      this.rollbackLogical(error);
      throw error;
    }
    await this.commitLogical();
    return result;
  }

  executeInTransaction<R>(query: CompiledQuery): QueryResult<R> {
    // Had SQLite abandoned the physical transaction, this statement would commit on its own.
    if (!this.writer.inTransaction) throw new Error('the transaction was rolled back by SQLite (see the error before this one)');
    if (isSchemaChange(query.sql)) {
      this.writerStatements.clear();
      this.readerStatements?.clear();
    }
    return run<R>(this.writerStatements.get(query.sql), query.parameters);
  }

  streamQuery<R>(session: Session, query: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    const statements = session.inTransaction || !this.readerStatements ? this.writerStatements : this.readerStatements;
    const statement = statements.get(query.sql);
    return (async function* () {
      for (const row of statement.iterate(query.parameters)) yield { rows: [row as R] };
    })();
  }

  private async beginLogical(): Promise<void> {
    if (this.writerHeld) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.writerHeld = true;
    try {
      if (!this.writer.inTransaction) {
        this.control.begin.run();
        this.batch = newBatch();
      }
      this.control.savepoint.run();
    } catch (error) {
      this.handOver();
      throw error;
    }
  }

  private async commitLogical(): Promise<void> {
    const batch = this.batch;
    if (!batch || !this.writer.inTransaction) {
      const error = new Error('the transaction was rolled back by SQLite (see the error before this one)');
      batch?.reject(error);
      this.batch = undefined;
      this.handOver();
      throw error;
    }
    this.control.release.run();
    batch.transactions++;
    this.handOver();
    await batch.durable;
  }

  private rollbackLogical(cause: unknown): void {
    if (this.writer.inTransaction) {
      this.control.rollbackTo.run();
      this.control.release.run();
    } else if (this.batch) {
      // SQLite rolled the physical transaction back itself: the batch's other transactions are gone too.
      this.batch.reject(cause);
      this.batch = undefined;
    }
    this.handOver();
  }

  /** Gives the write connection to the next transaction, and commits the batch when it should end. */
  private handOver(): void {
    const batch = this.batch;
    if (batch && (!this.options.groupCommit || batch.transactions >= MAX_BATCH_TRANSACTIONS || performance.now() - batch.openedAt >= MAX_BATCH_MS)) {
      this.flush();
    }
    const next = this.waiting.shift();
    if (next) {
      next(); // keeps writerHeld: the next transaction joins the open batch
      return;
    }
    this.writerHeld = false;
    // Nothing to make durable (its transactions rolled back): end it now rather than hold the write lock.
    if (this.batch?.transactions === 0) this.flush();
    if (this.batch && !this.flushScheduled) {
      this.flushScheduled = true;
      // After this turn's I/O callbacks: writes that arrive with this one join the batch.
      setImmediate(() => {
        this.flushScheduled = false;
        if (!this.writerHeld) this.flush();
      });
    }
  }

  private flush(): void {
    const batch = this.batch;
    this.batch = undefined;
    if (!batch) return;
    try {
      if (this.writer.inTransaction) this.control.commit.run();
      if (batch.transactions > 0) {
        this.counts.commits++;
        this.counts.transactions += batch.transactions;
      }
      batch.resolve();
    } catch (error) {
      if (this.writer.inTransaction) this.writer.exec('rollback');
      batch.reject(error);
    }
  }
}

class Session implements DatabaseConnection {
  inTransaction = false;

  constructor(private readonly driver: GroupCommitDriver) {}

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    return this.inTransaction ? this.driver.executeInTransaction<R>(query) : this.driver.executeAlone<R>(query);
  }

  streamQuery<R>(query: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    return this.driver.streamQuery<R>(this, query);
  }
}

function quote(identifier: string): string {
  return `"${identifier.replaceAll('"', '""')}"`;
}
