// Wraps a Kysely dialect so that change notes (notes.ts) reach this process's caches exactly when
// the change becomes visible: at commit for a note inside a transaction (dropped on rollback), at
// once for a note outside one. On PostgreSQL the notes of a transaction travel to the database
// with its COMMIT, as one `pg_notify` in the same round trip, instead of one statement per note.
// Nothing else about the dialect changes.
import { CompiledQuery, type DatabaseConnection, type Dialect, type Driver, type Kysely, type QueryCompiler, type QueryResult, type TransactionSettings } from 'kysely';
import { CHANGE_CHANNEL, CHANGE_NOTE_MARKER, decodeTopics, encodeTopics, EVERYTHING, publishLocally } from './notes.js';

interface ConnectionState {
  inTransaction: boolean;
  /** Topics noted in the open transaction, published when it ends. */
  pending: Set<string> | 'all';
}

export interface ChangeNotingOptions {
  /** Send the note to the database too (PostgreSQL's pg_notify); SQLite has nothing to send it to. */
  sendToDatabase: boolean;
}

export function withChangeNotes(inner: Dialect, options: ChangeNotingOptions): Dialect {
  return {
    createDriver: () => new ChangeNotingDriver(inner.createDriver(), options),
    createQueryCompiler: () => inner.createQueryCompiler(),
    createAdapter: () => inner.createAdapter(),
    createIntrospector: <DB>(db: Kysely<DB>) => inner.createIntrospector(db),
  };
}

const EMPTY_RESULT: QueryResult<never> = { rows: [] };

class ChangeNotingDriver implements Driver {
  /** Our connection object for each of the inner driver's, so Kysely hands ours back to us. */
  private readonly wrapped = new WeakMap<DatabaseConnection, DatabaseConnection>();
  private readonly innerOf = new WeakMap<DatabaseConnection, DatabaseConnection>();
  private readonly states = new WeakMap<DatabaseConnection, ConnectionState>();

  constructor(
    private readonly inner: Driver,
    private readonly options: ChangeNotingOptions,
  ) {}

  init(): Promise<void> {
    return this.inner.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    const connection = await this.inner.acquireConnection();
    let ours = this.wrapped.get(connection);
    if (!ours) {
      const state: ConnectionState = { inTransaction: false, pending: new Set() };
      ours = {
        // Only notes take the extra step: every other query goes straight to the connection.
        executeQuery: <R>(query: CompiledQuery): Promise<QueryResult<R>> =>
          query.sql.startsWith(CHANGE_NOTE_MARKER) ? this.note<R>(connection, state, query) : connection.executeQuery<R>(query),
        streamQuery: <R>(query: CompiledQuery, chunkSize?: number) => connection.streamQuery<R>(query, chunkSize),
      };
      this.wrapped.set(connection, ours);
      this.innerOf.set(ours, connection);
      this.states.set(ours, state);
    }
    return ours;
  }

  private async note<R>(connection: DatabaseConnection, state: ConnectionState, query: CompiledQuery): Promise<QueryResult<R>> {
    const changes = decodeTopics(String(query.parameters[1]));
    // Inside a transaction the note waits for the COMMIT (commitTransaction sends it along).
    const result = this.options.sendToDatabase && !state.inTransaction ? await connection.executeQuery<R>(query) : (EMPTY_RESULT as QueryResult<R>);
    if (!state.inTransaction) publishLocally(changes);
    else if (changes === 'all') state.pending = 'all';
    else if (state.pending !== 'all') for (const topic of changes) state.pending.add(topic);
    return result;
  }

  private unwrap(connection: DatabaseConnection): { inner: DatabaseConnection; state: ConnectionState } {
    const inner = this.innerOf.get(connection);
    const state = this.states.get(connection);
    if (!inner || !state) throw new Error('a connection this driver did not hand out');
    return { inner, state };
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    const { inner, state } = this.unwrap(connection);
    await this.inner.beginTransaction(inner, settings);
    state.inTransaction = true;
    state.pending = new Set();
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    const { inner, state } = this.unwrap(connection);
    try {
      const notes = state.pending === 'all' ? EVERYTHING : encodeTopics([...state.pending]);
      if (this.options.sendToDatabase && notes !== '') await inner.executeQuery(CompiledQuery.raw(notifyAndCommit(notes)));
      else await this.inner.commitTransaction(inner);
    } finally {
      // Also when the commit failed: on PostgreSQL a COMMIT whose answer was lost may have
      // committed, and an extra drop costs only a miss.
      this.settle(state, true);
    }
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    const { inner, state } = this.unwrap(connection);
    try {
      await this.inner.rollbackTransaction(inner);
    } finally {
      this.settle(state, false);
    }
  }

  private settle(state: ConnectionState, committed: boolean): void {
    const pending = state.pending;
    state.inTransaction = false;
    state.pending = new Set();
    if (!committed) return;
    if (pending === 'all') publishLocally('all');
    else if (pending.size > 0) publishLocally([...pending]);
  }

  async savepoint(connection: DatabaseConnection, name: string, compileQuery: QueryCompiler['compileQuery']): Promise<void> {
    const { inner } = this.unwrap(connection);
    if (!this.inner.savepoint) throw new Error('this dialect has no savepoints');
    await this.inner.savepoint(inner, name, compileQuery);
  }

  // A note made inside a savepoint that is rolled back stays pending: one more drop, never a miss.
  async rollbackToSavepoint(connection: DatabaseConnection, name: string, compileQuery: QueryCompiler['compileQuery']): Promise<void> {
    const { inner } = this.unwrap(connection);
    if (!this.inner.rollbackToSavepoint) throw new Error('this dialect has no savepoints');
    await this.inner.rollbackToSavepoint(inner, name, compileQuery);
  }

  async releaseSavepoint(connection: DatabaseConnection, name: string, compileQuery: QueryCompiler['compileQuery']): Promise<void> {
    const { inner } = this.unwrap(connection);
    if (!this.inner.releaseSavepoint) throw new Error('this dialect has no savepoints');
    await this.inner.releaseSavepoint(inner, name, compileQuery);
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    await this.inner.releaseConnection(this.unwrap(connection).inner);
  }

  destroy(): Promise<void> {
    return this.inner.destroy();
  }
}

/**
 * The transaction's notes and its COMMIT as one simple query (one round trip; a simple query takes
 * no parameters, so the payload is a dollar-quoted literal, which has no escapes to get wrong). If
 * the notify fails, the COMMIT is skipped with it and the transaction rolls back.
 */
function notifyAndCommit(notes: string): string {
  const payload = notes.includes('$note$') ? EVERYTHING : notes;
  return `select pg_notify('${CHANGE_CHANNEL}', current_schema() || ' ' || $note$${payload}$note$); commit`;
}
