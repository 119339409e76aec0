// The dashboard's per-day statistics of a year over HTTP, as a client sees them: GET /front/stats
// for the last 365 days with the days' boundaries (one request) against a request per day, four
// in flight at a time (what the dashboard did before `boundaries`), for one system of 100,000
// switches over the year (10,000 with --quick); UTC days (the per-day summary serves each whole)
// and days 3.5 hours behind UTC (it serves none: every switch is read either way). The answers
// are checked equal before timing.
//
// Run alone: node --import tsx bench/front-stats-parts.ts [--quick] [--postgres]
// (--postgres uses TEST_DATABASE_URL).
import { settleFrontDays } from '../src/db/repositories/front-days.js';
import { DAY_MS } from '../src/domain/front-days.js';
import type { FrontStats } from '../src/domain/front-stats.js';
import { signIn } from '../test/support/api.js';
import { startTestServer } from '../test/support/server.js';
import { seedSwitches } from './front-stats.js';

const USER = '500000000000000021';
const PARALLEL = 4;

async function main(): Promise<void> {
  const quick = process.argv.includes('--quick');
  const dialect = process.argv.includes('--postgres') ? 'postgres' : 'sqlite';
  // Without the rate limit: a request per day, a year at a time, would otherwise meet it (600 a minute per token).
  const server = await startTestServer(dialect, { RATE_LIMIT_ENABLED: 'false' });
  try {
    const user = await signIn(server, USER);
    const { db } = server.database;
    const system = await db.selectFrom('systems').select('id').where('user_id', '=', USER).executeTakeFirstOrThrow();
    const now = Date.now();
    const switches = quick ? 10_000 : 100_000;
    await seedSwitches(db, Number(system.id), switches, now);
    await db.transaction().execute((trx) => settleFrontDays(trx, Number(system.id)));
    const get = async (query: string) => {
      const response = await user.call<{ data: FrontStats }>('GET', `/v1/users/@me/front/stats?${query}`);
      if (response.status !== 200) throw new Error(`${response.status}: ${JSON.stringify(response.body).slice(0, 300)}`);
      return response.body.data;
    };
    const period = (from: number, to: number) => `from=${encodeURIComponent(new Date(from).toISOString())}&to=${encodeURIComponent(new Date(to).toISOString())}`;
    for (const [name, shiftHours] of [['UTC days', 0], ['days 3.5 h behind UTC', -3.5]] as const) {
      const shift = shiftHours * 3_600_000;
      const end = Math.floor((now + shift) / DAY_MS) * DAY_MS - shift;
      const bounds = Array.from({ length: 366 }, (_, k) => end - (365 - k) * DAY_MS);
      const one = () => get(`${period(bounds[0] as number, end)}&boundaries=${encodeURIComponent(bounds.slice(1, -1).map((at) => new Date(at).toISOString()).join(','))}`);
      const perDay = async () => {
        const answers: FrontStats[] = new Array(365);
        let next = 0;
        const worker = async () => {
          while (next < 365) {
            const k = next++;
            answers[k] = await get(period(bounds[k] as number, bounds[k + 1] as number));
          }
        };
        await Promise.all(Array.from({ length: PARALLEL }, worker));
        return answers;
      };
      if (JSON.stringify((await one()).parts) !== JSON.stringify(await perDay())) throw new Error(`${name}: the parts differ from the calls`);
      const oneTimes: number[] = [];
      const perDayTimes: number[] = [];
      for (let run = 0; run < (quick ? 2 : 6); run++) {
        let started = performance.now();
        await one();
        oneTimes.push(performance.now() - started);
        started = performance.now();
        await perDay();
        perDayTimes.push(performance.now() - started);
      }
      const median = (times: number[]) => [...times].sort((a, b) => a - b)[Math.floor(times.length / 2)] ?? 0;
      console.log(`${dialect}, ${switches} switches, 365 ${name}: one request (boundaries) median ${median(oneTimes).toFixed(0)} ms; a request per day, ${PARALLEL} at a time, median ${median(perDayTimes).toFixed(0)} ms (${oneTimes.length} runs)`);
    }
  } finally {
    await server.stop();
  }
}

await main();
