import { createServer, type Server, type Socket } from 'node:net';
import { jsonLineLogger, type ApiError } from '@listwatch/api';
import { freePort } from '@listwatch/testing';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { RestClient } from '../rest/client.js';
import { eventually } from '../testing/eventually.js';
import { coreV1 } from '../typed/resources.js';
import { FakeClock } from '../util/fake-clock.js';
import { SharedInformerFactory } from './informer-factory.js';

// Issue 33, "errors that speak": client-go's reflector hears of a failed LIST at once (its REST
// client does not retry a refused connection for a reflector, whose backoff is the retry).
describe('an informer against an unreachable server', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  function informerOn(server: string, onError: (err: ApiError) => void, log: string[]) {
    // A fake clock that never advances: any retry below the reflector would wait forever.
    const clock = new FakeClock();
    const client = new RestClient({ server, clock });
    const factory = new SharedInformerFactory({
      client,
      clock,
      logger: jsonLineLogger({ level: 'warn', write: (line) => log.push(line) }),
    });
    const informer = factory.informerFor(coreV1.configmaps);
    informer.setWatchErrorHandler(onError);
    cleanups.push(async () => {
      await factory.shutdown();
      await client.close();
    });
    return factory;
  }

  it('reports a refused connection to the watch-error handler and a warning on the first LIST, before any backoff elapses', async () => {
    const port = await freePort(); // nothing listens there
    const errors: ApiError[] = [];
    const log: string[] = [];
    informerOn(`http://127.0.0.1:${port}`, (err) => errors.push(err), log).start();
    await eventually(() => expect(errors.length).toBeGreaterThan(0));
    expect(errors[0]!.code).toBe(503);
    expect(errors[0]!.message).toMatch(/ECONNREFUSED|refused/);
    const warnings = log.map((l) => JSON.parse(l) as { level: string; msg: string });
    expect(warnings).toContainEqual(
      expect.objectContaining({ level: 'warn', msg: 'list and watch failed' }),
    );
  });

  it('without a logger, the first failure is a warning on stderr (the default logger is not silent)', async () => {
    const port = await freePort();
    const lines: string[] = [];
    const write = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
      lines.push(String(chunk));
      return true;
    });
    try {
      const clock = new FakeClock();
      const client = new RestClient({ server: `http://127.0.0.1:${port}`, clock });
      const factory = new SharedInformerFactory({ client, clock });
      factory.informerFor(coreV1.configmaps);
      cleanups.push(async () => {
        await factory.shutdown();
        await client.close();
      });
      factory.start();
      await eventually(() =>
        expect(lines.join('')).toMatch(/"level":"warn".*"msg":"list and watch failed"/),
      );
    } finally {
      write.mockRestore();
    }
  });

  it('calls the watch-error handler after exactly one connection attempt when the connection breaks', async () => {
    let attempts = 0;
    const sockets = new Set<Socket>();
    const server: Server = createServer((socket) => {
      attempts++;
      sockets.add(socket);
      socket.once('data', () => socket.destroy()); // the request arrives, the connection breaks
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanups.push(
      () =>
        new Promise<void>((resolve) => {
          for (const s of sockets) s.destroy();
          server.close(() => resolve());
        }),
    );
    const { port } = server.address() as { port: number };
    const attemptsAtError: number[] = [];
    informerOn(`http://127.0.0.1:${port}`, () => attemptsAtError.push(attempts), []).start();
    await eventually(() => expect(attemptsAtError.length).toBeGreaterThan(0));
    expect(attemptsAtError[0]).toBe(1);
  });
});
