// What can stop start-up after the configuration parsed: the data folder, the database, the
// listening socket and the Redis stores. Each failure becomes one StartupError line that names the
// variable to look at and what to do, in the tone of ConfigError; main.ts prints it without a
// stack trace and exits 1. Errors that are none of these (bugs) keep their stack.
import { accessSync, constants, mkdirSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export class StartupError extends Error {
  constructor(
    /** The environment variable the operator should look at. */
    readonly variable: string,
    problem: string,
  ) {
    super(`Cannot start: ${variable}: ${problem}`);
    this.name = 'StartupError';
  }
}

/** Start-up steps that can hang on an unreachable host wait at most this long. */
export const CONNECT_TIMEOUT_MS = 5000;

/**
 * DATA_DIR must be a folder this process can write (the SQLite database and the generated keys
 * live there). Created when missing, like on a first start; checked before anything opens a file
 * in it, so the failure is about the folder, not about whichever file happened to be first.
 */
export function ensureDataDir(dataDir: string): void {
  const shown = JSON.stringify(resolve(dataDir));
  let isDirectory: boolean;
  try {
    isDirectory = statSync(dataDir).isDirectory();
  } catch (error) {
    if (codeOf(error) !== 'ENOENT' && codeOf(error) !== 'ENOTDIR') throw new StartupError('DATA_DIR', `cannot read the folder ${shown} (${reasonOf(error)}); give this user access to it or set DATA_DIR to another folder`);
    try {
      mkdirSync(dataDir, { recursive: true });
      return;
    } catch (mkdirError) {
      throw new StartupError('DATA_DIR', `the folder ${shown} does not exist and cannot be created (${reasonOf(mkdirError)}); create it or set DATA_DIR to a writable folder`);
    }
  }
  if (!isDirectory) throw new StartupError('DATA_DIR', `${shown} is a file, not a folder; set DATA_DIR to a folder (it holds the database and the generated keys)`);
  // access(W_OK) says yes to root even on a read-only mount, so a real write is the test.
  const probe = join(dataDir, `.switchboard-write-test-${process.pid}`);
  try {
    accessSync(dataDir, constants.W_OK);
    writeFileSync(probe, '');
    unlinkSync(probe);
  } catch (error) {
    throw new StartupError('DATA_DIR', `the folder ${shown} is not writable by this user (${reasonOf(error)}); give the user running switchboard write access to it (chown or chmod), or set DATA_DIR to a writable folder`);
  }
}

/** listen() failed: the port is taken or not allowed, or HOST is not an address of this machine. */
export function listenFailure(error: unknown, host: string, port: number): Error {
  const where = `${host}:${port}`;
  switch (codeOf(error)) {
    case 'EADDRINUSE':
      return new StartupError('PORT', `${where} is already in use by another program; stop that program or set PORT to a free port`);
    case 'EACCES':
    case 'EPERM':
      return new StartupError('PORT', `this user may not listen on ${where} (ports below 1024 need extra privileges); set PORT to 1024 or above and put a reverse proxy in front`);
    case 'EADDRNOTAVAIL':
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_NONAME':
      return new StartupError('HOST', `${JSON.stringify(host)} is not an address of this machine; set HOST to 127.0.0.1 (this machine only) or 0.0.0.0 (every interface)`);
    default:
      return asError(error);
  }
}

/**
 * Opening or migrating the database failed. Only the host, port and database name are shown,
 * never the whole URL: it may hold a password.
 */
export function databaseFailure(error: unknown, databaseUrl: string, variable = 'DATABASE_URL'): Error {
  if (error instanceof StartupError) return error;
  if (databaseUrl.startsWith('sqlite:')) {
    const file = resolve(databaseUrl.slice('sqlite:'.length));
    const path = JSON.stringify(file);
    const code = codeOf(error);
    if (!isRegularFileOrAbsent(file)) return new StartupError(variable, `${path} is not a regular file (a device, a folder or a socket); point ${variable} at a file in a writable folder`);
    if (code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT') return new StartupError(variable, `${path} is not an SQLite database (or is damaged); point ${variable} at the right file`);
    if (code === 'SQLITE_READONLY' || code === 'SQLITE_CANTOPEN' || code === 'SQLITE_PERM' || code === 'EACCES' || code === 'ENOTDIR' || code === 'EROFS')
      return new StartupError(variable, `cannot open ${path} for writing (${reasonOf(error)}); give this user write access to the file and its folder, or point ${variable} elsewhere`);
    if (code?.startsWith('SQLITE_')) return new StartupError(variable, `SQLite cannot use ${path} (${reasonOf(error)}); point ${variable} at a file on a local disk`);
    return asError(error);
  }
  const target = describePostgresTarget(databaseUrl);
  switch (codeOf(error)) {
    case 'ECONNREFUSED':
      return new StartupError(variable, `nothing accepts connections at ${target.address}; start PostgreSQL there or fix the host and port in ${variable}`);
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new StartupError(variable, `the host ${JSON.stringify(target.host)} is not known; fix the host name in ${variable}`);
    case 'ETIMEDOUT':
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
    case 'CONNECT_TIMEOUT':
      return new StartupError(variable, `PostgreSQL at ${target.address} did not answer (${reasonOf(error)}); check that it runs and that a firewall lets this machine reach it`);
    case '28P01':
    case '28000':
      return new StartupError(variable, `PostgreSQL at ${target.address} refused the user ${JSON.stringify(target.user)} (wrong user name or password); fix them in ${variable}`);
    case '3D000':
      return new StartupError(variable, `the database ${JSON.stringify(target.database)} does not exist on ${target.address}; create it (createdb ${target.database}) or fix its name in ${variable}`);
    case 'NO_CURRENT_SCHEMA': // thrown by migrate (db/database.ts)
      return new StartupError(variable, `its search_path (options=-c search_path=…) names no schema that exists in ${JSON.stringify(target.database)} on ${target.address}; create the schema (create schema …) or fix the search_path in ${variable}`);
    case '42501':
      return new StartupError(variable, `the user ${JSON.stringify(target.user)} may not create tables in ${JSON.stringify(target.database)}; grant it CREATE on the schema or use the database's owner`);
    default:
      return asError(error);
  }
}

function isRegularFileOrAbsent(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return true;
  }
}

/** A Redis store (REDIS_URL, BOT_STORE_URL) could not be reached within CONNECT_TIMEOUT_MS. */
export function redisFailure(error: unknown, variable: string, url: string, purpose: string): StartupError {
  const address = describeRedisTarget(url);
  const code = codeOf(error);
  const problem =
    code === 'ENOTFOUND' || code === 'EAI_AGAIN'
      ? `the host ${JSON.stringify(new URL(url).hostname)} is not known; fix the host name in ${variable}`
      : code === 'ECONNREFUSED'
        ? `nothing accepts connections at ${address}; start Redis there or fix ${variable}`
        : /NOAUTH|WRONGPASS|invalid password|invalid username-password/i.test(reasonOf(error))
          ? `Redis at ${address} refused the credentials; fix the user name or password in ${variable}`
          : `Redis at ${address} cannot be reached (${reasonOf(error)}); start it, or fix ${variable}`;
  return new StartupError(variable, `${problem} (${purpose})`);
}

/** Resolves with `promise`, or rejects with a CONNECT_TIMEOUT error after `ms`. */
export async function withConnectTimeout<T>(promise: Promise<T>, ms = CONNECT_TIMEOUT_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(Object.assign(new Error(`no answer within ${ms / 1000} s`), { code: 'CONNECT_TIMEOUT' })), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function describePostgresTarget(url: string): { address: string; host: string; user: string; database: string } {
  try {
    const parsed = new URL(url);
    const host = decodeURIComponent(parsed.hostname) || 'localhost';
    return {
      host,
      address: `${host}:${parsed.port || '5432'}`,
      user: decodeURIComponent(parsed.username) || 'the default user',
      database: decodeURIComponent(parsed.pathname.slice(1)) || decodeURIComponent(parsed.username),
    };
  } catch {
    return { host: 'the host', address: 'the address in DATABASE_URL', user: 'the user', database: 'the database' };
  }
}

function describeRedisTarget(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}:${parsed.port || '6379'}`;
  } catch {
    return 'the configured address';
  }
}

/** The first code of an error, of an AggregateError (a connection tried on IPv4 and IPv6), or of its cause. */
function codeOf(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, errors, cause } = error as { code?: unknown; errors?: unknown; cause?: unknown };
  if (typeof code === 'string') return code;
  if (Array.isArray(errors)) for (const inner of errors) if (codeOf(inner)) return codeOf(inner);
  return cause === undefined ? undefined : codeOf(cause);
}

function reasonOf(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) return [...new Set(error.errors.map(reasonOf))].join('; ');
  if (error instanceof Error) return error.message || codeOf(error) || error.name;
  return String(error);
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
