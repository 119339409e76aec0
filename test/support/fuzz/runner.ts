// Runs the properties of one dialect: starts the server and its fixtures, sends each generated case
// and checks it against its contract, the database (unchanged by rejections and reads) and the
// audit log, follows up what a success returned, and counts cases and statuses for the summary.
import fc from 'fast-check';
import { type Dispatcher, Pool } from 'undici';
import { afterAll, beforeAll, expect } from 'vitest';
import type { TestDialect } from '../dialects.js';
import { startTestServer, type TestServer } from '../server.js';
import { type DatabaseSnapshot, DatabaseWatcher, describeDifference } from '../snapshot.js';
import { contractViolation, type Expectation, type Observations, observe, parseJson, routeFor } from './contract.js';
import { type FuzzRequest, type FuzzResponse, showExchange } from './exchange.js';
import { type Fixtures, setUp } from './fixtures.js';

export const SEED = Number(process.env.FUZZ_SEED ?? 20261121);
/** Replays one counterexample of one property (with FUZZ_SEED and vitest -t); printed with every failure. */
const PATH = process.env.FUZZ_PATH;
/**
 * npm test runs 0.3 of each property's listed runs, for the suite's ten-minute budget (0.4 until
 * the dashboard's browser suites joined it); FUZZ_SCALE=1 runs them all, and more for a longer
 * local session.
 */
const SCALE = Math.max(0.1, Number(process.env.FUZZ_SCALE ?? 0.3));
/** PostgreSQL runs 40% of the cases: each costs more there, and SQLite carries the minimum. */
const DIALECT_SHARE: Record<TestDialect, number> = { sqlite: 1, postgres: 0.4 };
const STRICT = process.env.FUZZ_STRICT === '1';

/** An open bug in src/ a response may show; the properties count it instead of failing (FUZZ_STRICT=1: they fail). */
export interface KnownBug {
  id: string;
  matches(expectation: Expectation, request: FuzzRequest, response: FuzzResponse): boolean;
}

export interface FuzzRunnerOptions<Name extends string> {
  /** Runs per property on SQLite (scaled per dialect and by FUZZ_SCALE). */
  runs: Record<Name, number>;
  knownBugs: KnownBug[];
}

/** Call inside the dialect's describe: registers its beforeAll/afterAll. The server, fixtures and
 * watcher are there once beforeAll ran. */
export function fuzzRunner<Name extends string>(dialect: TestDialect, options: FuzzRunnerOptions<Name>) {
  const KNOWN_BUGS = options.knownBugs;
  let server: TestServer;
  let http: Pool;
  let fixtures: Fixtures;
  let watcher: DatabaseWatcher;
  let baseline: DatabaseSnapshot;
  let cases = 0;
  let planned = 0;
  const observations: Observations = new Map();
  /** Per property, how often each status came back: shows how many cases got past validation. */
  const statuses = new Map<string, Map<number, number>>();
  const runs = (name: Name) => Math.ceil(options.runs[name] * DIALECT_SHARE[dialect] * SCALE);

  beforeAll(async () => {
    server = await startTestServer(dialect, { RATE_LIMIT_ENABLED: 'false' });
    http = new Pool(server.url, { connections: 1, headersTimeout: 30_000, bodyTimeout: 30_000 });
    fixtures = await setUp(server);
    watcher = new DatabaseWatcher(server.database.db, { exclude: ['audit_log'] });
    baseline = await watcher.current();
    await newAuditKinds();
  });
  afterAll(async () => {
    await http?.close();
    await server?.stop();
  });

  let lastAuditId = 0;
  /** The kinds of the audit entries written since the last call. */
  async function newAuditKinds(): Promise<string[]> {
    const rows = await server.database.db.selectFrom('audit_log').select(['id', 'kind']).where('id', '>', lastAuditId).orderBy('id').execute();
    lastAuditId = rows.at(-1)?.id ?? lastAuditId;
    return rows.map((row) => row.kind);
  }

  async function exchange(request: FuzzRequest): Promise<FuzzResponse> {
    // undici 6's types name only the standard methods; it sends any valid token (UNKNOWN_METHODS).
    const method = request.method as Dispatcher.HttpMethod;
    const response = await http.request({ method, path: request.path, headers: request.headers.flat(), body: request.body });
    const text = await response.body.text();
    const contentType = String(response.headers['content-type'] ?? '');
    return { status: response.statusCode, contentType, headers: response.headers, text, json: parseJson(text) };
  }

  /** Sends one case and checks it against its contract and the database; throws what is wrong. */
  async function check(name: string, expectation: Expectation, request: FuzzRequest): Promise<void> {
    const before = baseline;
    let response: FuzzResponse;
    try {
      response = await exchange(request);
    } catch (error) {
      // A response the client refused to read: status 0, with the client's reason as its text.
      response = { status: 0, contentType: '', headers: {}, text: (error as Error).message, json: undefined };
      if (STRICT || !KNOWN_BUGS.some((bug) => bug.matches(expectation, request, response))) {
        throw new Error(`the request failed without a response: ${(error as Error).message}\n${showExchange(request)}`);
      }
    }
    const after = await watcher.current();
    baseline = after;
    const audited = await newAuditKinds();
    cases++;
    const counts = statuses.get(name) ?? new Map<number, number>();
    counts.set(response.status, (counts.get(response.status) ?? 0) + 1);
    statuses.set(name, counts);
    const violation = contractViolation(expectation, request, response, observations);
    if (violation) {
      const known = STRICT ? undefined : KNOWN_BUGS.find((bug) => bug.matches(expectation, request, response));
      if (!known) throw new Error(`${violation}\n${showExchange(request, response)}`);
      observe(observations, `known bug: ${known.id}`, () => showExchange(request, response));
    }
    const route = routeFor(expectation, request.method);
    const claimsNoChange = response.status < 300 && (route?.unchanged?.(response) ?? false);
    const mustNotChange = response.status >= 400 || (route?.readOnly ?? true) || claimsNoChange;
    if (mustNotChange && after.digest !== before.digest) {
      const why =
        response.status >= 400 ? `a rejected request (${response.status})` : claimsNoChange ? `a success that says it changed nothing (${response.status})` : `a ${request.method} that must not write`;
      throw new Error(`${why} changed the database:\n${describeDifference(before, after)}\n${showExchange(request, response)}`);
    }
    if (response.status >= 400 && audited.some((kind) => kind !== 'client-auth-failed')) {
      throw new Error(`a rejected request (${response.status}) wrote audit entries ${audited.join(', ')}\n${showExchange(request, response)}`);
    }
    const next = response.status === expectation.success && request.method === expectation.method ? expectation.followUp?.(response) : undefined;
    if (next) {
      const followed = await exchange(next);
      baseline = await watcher.current();
      await newAuditKinds();
      if (followed.status >= 300 && followed.status < 400) return;
      const known = STRICT ? undefined : KNOWN_BUGS.find((bug) => bug.matches(expectation, next, followed));
      if (!known) throw new Error(`using what the request returned failed with ${followed.status}\n${showExchange(request, response)}\nthen\n${showExchange(next, followed)}`);
      observe(observations, `known bug: ${known.id}`, () => `${showExchange(request, response)}\nthen\n${showExchange(next, followed)}`);
    }
  }

  async function fuzz(name: Name, expectation: Expectation, arbitrary: fc.Arbitrary<FuzzRequest>) {
    const numRuns = runs(name);
    planned += numRuns;
    const title = expect.getState().currentTestName?.split(' > ').pop() ?? name;
    await fc.assert(fc.asyncProperty(arbitrary, (request) => check(name, expectation, request)), {
      seed: SEED,
      numRuns,
      ...(PATH ? { path: PATH } : {}),
      // fast-check's own report prints the whole counterexample, which can be megabytes of body;
      // the error already shows the request, abridged, with the fixtures' secrets named.
      reporter(details) {
        if (!details.failed) return;
        const cause = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
        const again = `FUZZ_SEED=${details.seed} npx vitest run test/security/fuzz.test.ts`;
        const alone = `FUZZ_SEED=${details.seed} FUZZ_PATH=${details.counterexamplePath ?? ''} npx vitest run test/security/fuzz.test.ts -t '${title}'`;
        throw new Error(
          `Property failed after ${details.numRuns} tests, shrunk ${details.numShrinks} times.\n` +
            `Again, the same sequence: ${again}\nThis case alone (without the state earlier cases left): ${alone}\n${cause}`,
        );
      },
    });
  }

  return {
    get server() {
      return server;
    },
    get fixtures() {
      return fixtures;
    },
    get watcher() {
      return watcher;
    },
    exchange,
    fuzz,
    /** Cases sent and planned so far, what the plan adds up to, the statuses per property and what
     * was observed but not asserted. */
    summary() {
      const total = (Object.keys(options.runs) as Name[]).reduce((sum, name) => sum + runs(name), 0);
      return { cases, planned, total, statuses, observations };
    },
  };
}
