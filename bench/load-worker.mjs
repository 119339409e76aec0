// Runs one autocannon load in its own process (so the load generator does not share a CPU with
// the server it measures) and prints the figures as JSON on stdout.
// Options beyond autocannon's: `variants` (requests rotate through these paths and headers),
// `$N` in the body (replaced by a unique number per request), `refreshChain` (a pool of refresh
// tokens: each request redeems one and the rotated token it gets back returns to the pool; a
// per-connection context would not do, autocannon resets it after every request), and `codes`
// (each request redeems one authorization code from the list, once).
import autocannon from 'autocannon';

const options = JSON.parse(process.argv[2] ?? '{}');
let counter = 0;
let variant = 0;
let code = 0;
const refreshPool = [...(options.refreshChain?.tokens ?? [])];

function setupRequest(request) {
  const next = { ...request };
  if (options.variants) {
    const chosen = options.variants[variant++ % options.variants.length];
    next.path = chosen.path;
    next.headers = { ...request.headers, ...chosen.headers };
  }
  if (options.refreshChain) {
    const token = refreshPool.shift();
    if (!token) throw new Error('the refresh token pool ran dry: a refresh failed');
    next.body = new URLSearchParams({ grant_type: 'refresh_token', refresh_token: token }).toString();
  } else if (options.codes) {
    const item = options.codes[code++];
    if (!item) return null;
    next.body = new URLSearchParams({ grant_type: 'authorization_code', code: item.code, code_verifier: item.verifier, redirect_uri: options.redirectUri }).toString();
  } else if (typeof request.body === 'string' && request.body.includes('$N')) {
    next.body = request.body.replaceAll('$N', `${process.pid}x${counter++}`);
  }
  return next;
}

function onResponse(status, body) {
  if (options.refreshChain && status === 200) refreshPool.push(JSON.parse(body).refresh_token);
}

const result = await autocannon({
  url: options.url,
  connections: options.connections,
  ...(options.amount ? { amount: options.amount } : { duration: options.duration }),
  method: options.method ?? 'GET',
  headers: options.headers ?? {},
  body: options.body,
  requests: [{ setupRequest, onResponse }],
});
process.stdout.write(
  JSON.stringify({
    requestsPerSecond: result.requests.average,
    total: result.requests.total,
    durationSeconds: result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
  }),
);
