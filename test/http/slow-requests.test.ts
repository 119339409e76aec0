// A client that sends its request slowly (slowloris: headers or a body trickled a byte at a time)
// must not hold a connection, and the memory behind it, for ever: the server answers 408 or closes
// once REQUEST_TIMEOUT_MS (the whole request) or HEADERS_TIMEOUT_MS (the headers) has passed.
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/server.js';

/** Writes `head`, then one byte of `drip` every 100 ms until the server closes the socket or `patience` ms pass. */
async function trickle(url: string, head: string, drip: string, patience: number): Promise<{ closedByServer: boolean; answer: string }> {
  const { hostname, port } = new URL(url);
  const socket: Socket = connect(Number(port), hostname);
  let answer = '';
  socket.on('data', (chunk: Buffer) => (answer += chunk.toString('latin1')));
  socket.on('error', () => undefined);
  await new Promise<void>((resolve) => socket.once('connect', resolve));
  socket.write(head);
  let closedByServer = false;
  const closed = new Promise<void>((resolve) =>
    socket.once('close', () => {
      closedByServer = true;
      resolve();
    }),
  );
  const deadline = Date.now() + patience;
  while (!closedByServer && Date.now() < deadline) {
    if (!socket.writable) break;
    socket.write(drip);
    await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, 100))]);
  }
  const result = { closedByServer: closedByServer || !socket.writable, answer };
  socket.destroy();
  return result;
}

describe('slow requests', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer('sqlite', { REQUEST_TIMEOUT_MS: '1500', HEADERS_TIMEOUT_MS: '1000' });
  });
  afterAll(async () => {
    await server?.stop();
  });

  // Far longer than the configured timeouts, far shorter than "for ever".
  const patience = 20_000;

  it('answers 408 and closes a connection whose body trickles in past REQUEST_TIMEOUT_MS', async () => {
    const head = ['POST /auth/oauth2/token HTTP/1.1', `Host: 127.0.0.1`, 'Content-Type: application/x-www-form-urlencoded', 'Content-Length: 10000', '', ''].join('\r\n');
    const { closedByServer, answer } = await trickle(server.url, head, 'a', patience);
    expect(closedByServer).toBe(true);
    if (answer !== '') expect(answer).toMatch(/^HTTP\/1\.1 408 /);
  }, 40_000);

  it('closes a connection whose headers trickle in past HEADERS_TIMEOUT_MS', async () => {
    const { closedByServer, answer } = await trickle(server.url, 'GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n', 'X', patience);
    expect(closedByServer).toBe(true);
    if (answer !== '') expect(answer).toMatch(/^HTTP\/1\.1 408 /);
  }, 40_000);

  it('still serves a request sent at an ordinary pace', async () => {
    const response = await fetch(`${server.url}/healthz`);
    expect(response.status).toBe(200);
  });
});
