// Runs one autocannon load in its own process (so the load generator does not share a CPU with
// the server it measures) and prints the figures as JSON on stdout.
import autocannon from 'autocannon';

const options = JSON.parse(process.argv[2] ?? '{}');
const result = await autocannon({
  url: options.url,
  connections: options.connections,
  duration: options.duration,
  method: options.method ?? 'GET',
  headers: options.headers ?? {},
  body: options.body,
  // Each request of a write benchmark gets its own body (unique usernames).
  ...(options.uniqueBodies ? { requests: [{ setupRequest: (request) => ({ ...request, body: request.body.replace('$N', `${process.pid}-${Math.random().toString(36).slice(2)}`) }) }] } : {}),
});
process.stdout.write(
  JSON.stringify({
    requestsPerSecond: result.requests.average,
    total: result.requests.total,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
  }),
);
