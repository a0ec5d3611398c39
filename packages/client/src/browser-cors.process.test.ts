import { build } from 'esbuild';
import type { Browser } from 'playwright-core';
import { chromium } from 'playwright-core';
import type { RunningApiServer } from '@listwatch/apiserver';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RestClient } from './rest/client.js';
import { startTestApiServer } from './testing/apiserver.js';
import { packageDir } from './testing/typecheck.js';
import { coreV1 } from './typed/resources.js';

/** The page's program: list the pods of the apiserver named in the query, from this origin. */
const PAGE_SCRIPT = `
import { RestClient, coreV1 } from '@listwatch/client';
const server = new URLSearchParams(location.search).get('server');
const client = new RestClient({ server, retry: { maxRetries: 0 } });
client.resource(coreV1.pods).namespace('default').list().then(
  (list) => { window.outcome = { pods: list.items.map((p) => p.metadata.name) }; },
  (err) => { window.outcome = { error: String(err && err.message) }; },
);
`;

type Outcome = { pods: string[] } | { error: string };

/** A web server of its own origin serving the page and its bundle. */
async function pageServer(js: string): Promise<{ origin: string; server: Server }> {
  const server = createServer((req, res) => {
    if (req.url?.startsWith('/app.js')) {
      res.writeHead(200, { 'content-type': 'text/javascript' });
      res.end(js);
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<!doctype html><script type="module" src="/app.js"></script>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

// Issue 33 items 6 and the apiserver's --cors-allowed-origins: a page served from another
// origin than the apiserver uses the client's browser bundle against it, which the browser
// lets it read only when the server answers with CORS headers for that origin.
describe('a page of another origin lists pods with the browser bundle', () => {
  let apiserver: RunningApiServer;
  let client: RestClient;
  let browser: Browser;
  let allowed: Awaited<ReturnType<typeof pageServer>>;
  let other: Awaited<ReturnType<typeof pageServer>>;

  beforeAll(async () => {
    const result = await build({
      stdin: { contents: PAGE_SCRIPT, resolveDir: packageDir, loader: 'js' },
      bundle: true,
      platform: 'browser',
      format: 'esm',
      write: false,
      logLevel: 'silent',
      conditions: ['@listwatch/source'],
    });
    const js = new TextDecoder().decode(result.outputFiles[0]!.contents);
    allowed = await pageServer(js);
    other = await pageServer(js);
    apiserver = await startTestApiServer({
      corsAllowedOrigins: [`^${escapeRegExp(allowed.origin)}$`],
    });
    client = new RestClient({ server: apiserver.url });
    await client
      .resource(coreV1.pods)
      .namespace('default')
      .create({
        metadata: { name: 'seen-from-the-page' },
        spec: { containers: [{ name: 'c', image: 'nginx' }] },
      });
    browser = await chromium.launch({
      executablePath: process.env['CHROMIUM'] ?? '/usr/bin/chromium',
      args: ['--headless', '--no-sandbox', '--disable-gpu'],
    });
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    for (const page of [allowed, other]) await new Promise((r) => page?.server.close(r));
    await client?.close();
    await apiserver?.close();
  });

  async function outcomeAt(origin: string): Promise<Outcome> {
    const page = await browser.newPage();
    try {
      await page.goto(`${origin}/?server=${encodeURIComponent(apiserver.url)}`);
      const handle = await page.waitForFunction(
        () => (globalThis as unknown as { outcome?: Outcome }).outcome,
      );
      return (await handle.jsonValue()) as Outcome;
    } finally {
      await page.close();
    }
  }

  it('from an origin --cors-allowed-origins allows, the list arrives', async () => {
    expect(await outcomeAt(allowed.origin)).toEqual({ pods: ['seen-from-the-page'] });
  });

  it('from any other origin the browser refuses the answer: the list fails', async () => {
    const outcome = await outcomeAt(other.origin);
    expect(outcome).toHaveProperty('error');
    expect(outcome).not.toHaveProperty('pods');
  });
});
