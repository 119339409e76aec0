// `node --import tsx bench/pg-round-trip.ts` (BENCH_DATABASE_URL or TEST_DATABASE_URL): what one
// PostgreSQL round trip costs the client's CPU, sent back to back and after a gap in which the
// client is busy elsewhere (as a service is between the statements of one transaction while it
// serves other requests). bench/ANALYSIS.md uses it to explain rows 3b and 3d.
import pg from 'pg';

const url = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
if (!url) throw new Error('set BENCH_DATABASE_URL or TEST_DATABASE_URL');

function busyFor(micros: number): number {
  const before = process.cpuUsage();
  const until = process.hrtime.bigint() + BigInt(micros * 1000);
  while (process.hrtime.bigint() < until);
  const used = process.cpuUsage(before);
  return used.user + used.system;
}

const client = new pg.Client({ connectionString: url });
await client.connect();
try {
  for (const gap of [0, 50, 200, 1000]) {
    let trips = 0;
    let gapCpu = 0;
    const before = process.cpuUsage();
    const end = Date.now() + 2000;
    while (Date.now() < end) {
      if (gap > 0) gapCpu += busyFor(gap);
      await client.query('select 1');
      trips++;
    }
    const used = process.cpuUsage(before);
    console.log(`busy ${String(gap).padStart(4)} µs before each: ${String(Math.round(trips / 2)).padStart(6)} round trips/s, ${((used.user + used.system - gapCpu) / trips).toFixed(1)} µs of client CPU per round trip`);
  }
} finally {
  await client.end();
}
