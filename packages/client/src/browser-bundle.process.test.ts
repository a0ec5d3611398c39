import { build } from 'esbuild';
import type { Browser, Page } from 'playwright-core';
import { chromium } from 'playwright-core';
import type { RunningApiServer } from '@listwatch/apiserver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RestClient } from './rest/client.js';
import { startTestApiServer } from './testing/apiserver.js';
import { packageDir } from './testing/typecheck.js';
import { startWwwProxy } from './testing/www-proxy.js';
import { coreV1 } from './typed/resources.js';

/** The page's program: an informer on ConfigMaps over the transport in the query. */
const PAGE_SCRIPT = `
import { RestClient, SharedInformerFactory, coreV1 } from '@listwatch/client';
const transport = new URLSearchParams(location.search).get('transport');
const client = new RestClient({ server: location.origin, watchTransport: transport });
const factory = new SharedInformerFactory({ client, namespace: 'default' });
const informer = factory.informerFor(coreV1.configmaps);
window.seen = [];
window.errors = [];
informer.setWatchErrorHandler((err) => window.errors.push(err.message));
informer.addEventHandler({ onAdd: (cm) => window.seen.push(cm.metadata.name) });
factory.start();
window.synced = () => informer.hasSynced();
`;

/** What the page's program leaves on its window (globalThis there). */
interface PageState {
  synced?: () => boolean;
  seen: string[];
  errors: string[];
}

async function bundle(platform: 'browser' | 'node', contents = PAGE_SCRIPT) {
  return build({
    stdin: { contents, resolveDir: packageDir, loader: 'js' },
    bundle: true,
    platform,
    format: 'esm',
    write: false,
    metafile: true,
    logLevel: 'silent',
    conditions: ['@listwatch/source'],
  });
}

// Issue 33 item 6: the client's core in a browser, on fetch and the browser's WebSocket.
describe('the client bundled for the browser', () => {
  let apiserver: RunningApiServer;
  let proxy: Awaited<ReturnType<typeof startWwwProxy>>;
  let browser: Browser;
  let client: RestClient;

  beforeAll(async () => {
    const result = await bundle('browser');
    const js = new TextDecoder().decode(result.outputFiles[0]!.contents);
    apiserver = await startTestApiServer();
    client = new RestClient({ server: apiserver.url });
    proxy = await startWwwProxy(apiserver.url, {
      '/': ['text/html', '<!doctype html><script type="module" src="/app.js"></script>'],
      '/app.js': ['text/javascript', js],
    });
    browser = await chromium.launch({
      executablePath: process.env['CHROMIUM'] ?? '/usr/bin/chromium',
      args: ['--headless', '--no-sandbox', '--disable-gpu'],
    });
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await proxy?.close();
    await client?.close();
    await apiserver?.close();
  });

  it('esbuild --platform=browser bundles it with no error, no warning and no Node built-in', async () => {
    const result = await bundle('browser');
    expect(result.errors).toEqual([]);
    expect(result.warnings).toEqual([]);
    const inputs = Object.keys(result.metafile.inputs);
    expect(
      inputs.filter((i) => /^node:|\/undici\/|clientcmd\/(kubeconfig|exec-credential)\.ts/.test(i)),
    ).toEqual([]);
  });

  it('the bundle leaves out the generated schemas (673 KB): the kind table has no printers and protobuf is not in the browser build', async () => {
    const schemaModule = /\/api\/src\/generated\/schemas\.ts$/;
    const included = async (contents?: string) => {
      const result = await bundle('browser', contents);
      const [output] = Object.values(result.metafile.outputs);
      return Object.keys(output!.inputs).filter((i) => schemaModule.test(i));
    };
    expect(await included()).toEqual([]);
    expect(await included("export * from '@listwatch/client';")).toEqual([]);
    // A selector import is the selector code alone (@listwatch/api is sideEffects: false).
    expect(
      await included(
        "import { parseLabelSelector } from '@listwatch/api'; parseLabelSelector('a=b');",
      ),
    ).toEqual([]);
    // The Node bundle keeps protobuf, and with it the schemas.
    const node = await bundle('node', "export { decodeObject } from '@listwatch/codec';");
    const [nodeOutput] = Object.values(node.metafile.outputs);
    expect(Object.keys(nodeOutput!.inputs).filter((i) => schemaModule.test(i))).toHaveLength(1);
  });

  async function open(transport: 'http' | 'websocket'): Promise<Page> {
    const page = await browser.newPage();
    const failures: string[] = [];
    page.on('pageerror', (err) => failures.push(err.message));
    await page.goto(`${proxy.url}/?transport=${transport}`);
    await page.waitForFunction(() => (globalThis as unknown as PageState).synced?.() === true);
    expect(failures).toEqual([]);
    return page;
  }

  for (const transport of ['http', 'websocket'] as const) {
    it(`an informer in Chromium lists, then watches over ${transport === 'http' ? 'fetch streaming' : 'the browser WebSocket'}: a ConfigMap created afterwards reaches its handler`, async () => {
      const name = `from-node-${transport}`;
      const page = await open(transport);
      try {
        await client
          .resource(coreV1.configmaps)
          .namespace('default')
          .create({ metadata: { name } });
        await page.waitForFunction(
          (n) => (globalThis as unknown as PageState).seen.includes(n),
          name,
        );
        expect(await page.evaluate(() => (globalThis as unknown as PageState).errors)).toEqual([]);
      } finally {
        await page.close();
      }
    });
  }
});
