import { freePort, tempDir, TcpProxy } from '@listwatch/testing';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, expect, it } from 'vitest';
import { DashboardServer } from './dashboard-server.js';
import { launchChromium } from './testing/browser.js';

const appDir = fileURLToPath(new URL('..', import.meta.url));
const apiserverDir = fileURLToPath(new URL('../../../packages/apiserver', import.meta.url));
/** Where the screenshot goes (gitignored): CI keeps it as an artifact. */
const artifactsDir = fileURLToPath(new URL('../test-results/', import.meta.url));

const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) child.kill('SIGKILL');
});

/** Starts `src/main.ts` of a package as `pnpm <script>` does; its output so far in `out()`. */
function start(cwd: string, args: string[]): { child: ChildProcess; out: () => string } {
  const child = spawn(
    process.execPath,
    ['--conditions=@listwatch/source', '--import', 'tsx', 'src/main.ts', ...args],
    { cwd, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  children.push(child);
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (out += chunk.toString()));
  return { child, out: () => out };
}

async function startApiServer(
  port: number,
  dataDir: string,
  flags: string[] = [],
): Promise<ChildProcess> {
  const { child } = start(apiserverDir, ['--port', String(port), '--data-dir', dataDir, ...flags]);
  await expect
    .poll(async () => (await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => null))?.status, {
      timeout: 30_000,
      interval: 200,
    })
    .toBe(200);
  return child;
}

async function stop(child: ChildProcess): Promise<void> {
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  await exited;
}

/** The web Deployment's pods the page shows in a phase. */
const webPods = (page: Page, phase: string) =>
  page.locator(`[data-deployment="demo/web"] .pod[data-phase="${phase}"]`).count();

async function scaleWeb(server: string, replicas: number): Promise<void> {
  const res = await fetch(`${server}/apis/apps/v1/namespaces/demo/deployments/web`, {
    method: 'PATCH',
    headers: { 'Content-Type': 'application/merge-patch+json' },
    body: JSON.stringify({ spec: { replicas } }),
  });
  expect(res.status).toBe(200);
}

let browser: Browser | undefined;
afterAll(async () => {
  await browser?.close();
});

/** One browser shared by the tests; a fresh page for each. */
async function newPage(): Promise<Page> {
  browser ??= await launchChromium();
  return browser.newPage({ viewport: { width: 1400, height: 900 } });
}

it(
  'the dashboard shows nodes, the web Deployment and its pods changing phase live, its @listwatch/client informers watching over WebSockets, resumes from its resourceVersions after a network cut and after the apiserver restarts',
  // One retry: the page relisted once in 1 of 4 runs (suspected: a re-watch cut within a second
  // with no events, a "very short watch" that client-go's reflector answers with a relist).
  { timeout: 180_000, retry: 1 },
  async () => {
    const dir = tempDir('listwatch-dashboard-');
    let proxy: TcpProxy | undefined;
    try {
      const port = await freePort();
      const server = `http://127.0.0.1:${port}`;
      let apiserver = await startApiServer(port, dir.path);
      // The demo and the page reach the apiserver through a relay the test can cut.
      proxy = await TcpProxy.start(port);
      const demo = start(appDir, [
        '--server',
        proxy.endpoint,
        '--dashboard-port',
        '0',
        '--interval',
        '200',
      ]);
      await expect.poll(demo.out, { timeout: 30_000, interval: 200 }).toMatch(/dashboard on http/);
      const dashboardUrl = /dashboard on (http:\/\/\S+)/.exec(demo.out())![1]!;

      const page = await newPage();
      const pageErrors: string[] = [];
      page.on('pageerror', (err) => pageErrors.push(err.message));
      await page.goto(dashboardUrl);

      const watches = page.locator('#watches');
      await expect.poll(() => watches.getAttribute('data-live'), { timeout: 30_000 }).toBe('6');
      // The page asks for its module's import and its config at once with the module (preloads),
      // not one round trip after another: each waits on the busy demo process.
      const timings = await page.evaluate(() =>
        Object.fromEntries(
          performance
            .getEntriesByType('resource')
            .map((e) => e.toJSON() as { name: string; startTime: number; responseEnd: number })
            .map((e) => [new URL(e.name).pathname, { start: e.startTime, end: e.responseEnd }]),
        ),
      );
      expect(timings['/informers.js']!.start).toBeLessThan(timings['/dashboard.js']!.end);
      expect(timings['/client.js']!.start).toBeLessThan(timings['/dashboard.js']!.end);
      expect(timings['/config.json']!.start).toBeLessThan(timings['/dashboard.js']!.end);
      await expect
        .poll(() => page.locator('.node[data-node^="node-"]').count(), { timeout: 30_000 })
        .toBe(3);
      await expect.poll(() => webPods(page, 'Running'), { timeout: 30_000 }).toBe(3);

      // Scaled up through the API: the page sees new pods appear Pending and turn Running.
      await scaleWeb(server, 5);
      await expect.poll(() => webPods(page, 'Running'), { timeout: 30_000 }).toBe(5);
      const feedPods = async (type: string, phase: string) =>
        new Set(
          await page
            .locator(
              `#feed [data-kind="pod"][data-type="${type}"][data-phase="${phase}"]:not([data-initial])`,
            )
            .evaluateAll((lines: { getAttribute(name: string): string | null }[]) =>
              lines.map((l) => l.getAttribute('data-name')),
            ),
        );
      const added = await feedPods('ADDED', 'Pending');
      const running = await feedPods('MODIFIED', 'Running');
      expect(added.size).toBeGreaterThanOrEqual(2);
      for (const name of added) expect(running).toContain(name);
      expect(await page.locator('[data-deployment="demo/web"]').getAttribute('data-desired')).toBe(
        '5',
      );

      // The network drops while the Deployment is scaled: the watches resume from the
      // resourceVersions they saw, with no relist, and the page catches up.
      const attr = async (name: string) => Number(await watches.getAttribute(`data-${name}`));
      proxy.cut();
      await expect.poll(() => watches.getAttribute('data-live'), { timeout: 10_000 }).not.toBe('6');
      await scaleWeb(server, 4);
      proxy.restore();
      await expect.poll(() => watches.getAttribute('data-live'), { timeout: 30_000 }).toBe('6');
      await expect.poll(() => webPods(page, 'Running'), { timeout: 30_000 }).toBe(4);
      expect(await attr('resumes')).toBeGreaterThanOrEqual(4);
      expect(await attr('relists')).toBe(0);

      // The apiserver restarts on the same data: its new watch cache reaches back into storage's
      // history, so the page resumes from its resourceVersions again, without relisting.
      const resumesBefore = await attr('resumes');
      await stop(apiserver);
      await expect.poll(() => watches.getAttribute('data-live'), { timeout: 10_000 }).not.toBe('6');
      apiserver = await startApiServer(port, dir.path);
      await expect.poll(() => watches.getAttribute('data-live'), { timeout: 30_000 }).toBe('6');
      expect(await attr('resumes')).toBeGreaterThan(resumesBefore);
      expect(await attr('relists')).toBe(0);

      await scaleWeb(server, 2);
      await expect.poll(() => webPods(page, 'Running'), { timeout: 30_000 }).toBe(2);
      await expect
        .poll(() => page.locator('[data-deployment="demo/web"] .pod').count(), { timeout: 30_000 })
        .toBe(2);
      await expect
        .poll(async () => Number(await page.locator('#stat-watches').textContent()), {
          timeout: 10_000,
        })
        .toBeGreaterThan(0);

      mkdirSync(artifactsDir, { recursive: true });
      await page.screenshot({ path: `${artifactsDir}dashboard.png`, fullPage: true });
      expect(pageErrors).toEqual([]);

      await stop(demo.child);
      await stop(apiserver);
    } finally {
      await proxy?.close();
      dir.remove();
    }
  },
);

it('the dashboard keeps up while the web Deployment scales to 1,000 pods: every event is drawn, in batches of one per animation frame', async () => {
  const demo = start(appDir, [
    '--port',
    '0',
    '--storage-backend',
    'memory',
    '--dashboard-port',
    '0',
    '--interval',
    '1000',
  ]);
  await expect.poll(demo.out, { timeout: 30_000, interval: 200 }).toMatch(/dashboard on http/);
  const dashboardUrl = /dashboard on (http:\/\/\S+)/.exec(demo.out())![1]!;
  const server = /apiserver on (http:\/\/\S+)/.exec(demo.out())![1]!;
  const page = await newPage();
  await page.goto(dashboardUrl);
  await expect.poll(() => webPods(page, 'Running'), { timeout: 30_000 }).toBe(3);
  await scaleWeb(server, 1000);
  await expect.poll(() => webPods(page, 'Running'), { timeout: 120_000, interval: 500 }).toBe(1000);
  const body = page.locator('body');
  const drawn = async (name: string) => Number(await body.getAttribute(`data-${name}`));
  const [draws, events, meanMs, maxMs] = [
    await drawn('draws'),
    await drawn('events'),
    await drawn('draw-mean-ms'),
    await drawn('draw-max-ms'),
  ];
  // Batched: many events per draw. Draw times are reported, not asserted (a loaded machine
  // stretches them; the rule is the batching).
  expect(events).toBeGreaterThanOrEqual(3000); // each pod: added, bound, running
  expect(draws).toBeLessThan(events / 2);
  console.info(`dashboard: ${events} events in ${draws} draws, ${meanMs} ms mean, ${maxMs} ms max`);
  await stop(demo.child);
}, 180_000);

/** The web Deployment's pods as the apiserver lists them, by name. */
async function listWebPods(server: string): Promise<{ name: string; phase: string | undefined }[]> {
  const res = await fetch(`${server}/api/v1/namespaces/demo/pods?labelSelector=app%3Dweb`);
  const list = (await res.json()) as {
    items: { metadata: { name: string }; status?: { phase?: string } }[];
  };
  return list.items.map((p) => ({ name: p.metadata.name, phase: p.status?.phase }));
}

// client-go's reflector (tools/cache/reflector.go): a watch ended by 410 Expired relists and
// watches on from the new list's resourceVersion; the store is replaced, so what went away while
// the watch was down is deleted and nothing is kept twice.
it('the dashboard relists when its watch gets 410 Gone (its resourceVersion fell out of the watch cache while the network was cut) and then shows exactly the current pods, none twice and none stale', async () => {
  const dir = tempDir('listwatch-dashboard-gone-');
  let proxy: TcpProxy | undefined;
  let dashboard: DashboardServer | undefined;
  try {
    const port = await freePort();
    const server = `http://127.0.0.1:${port}`;
    // A watch cache of 10 events per resource: the pods the scaling below churns overflow it.
    const apiserver = await startApiServer(port, dir.path, ['--default-watch-cache-size', '10']);
    // The demo reaches the apiserver directly and keeps the cluster converging during the cut;
    // only the page goes through the relay.
    const demo = start(appDir, ['--server', server, '--dashboard-port', '0', '--interval', '1000']);
    await expect.poll(demo.out, { timeout: 30_000, interval: 200 }).toMatch(/dashboard on http/);
    proxy = await TcpProxy.start(port);
    dashboard = new DashboardServer(proxy.endpoint);
    const dashboardUrl = await dashboard.listen('127.0.0.1', 0, false);

    const page = await newPage();
    const pageErrors: string[] = [];
    page.on('pageerror', (err) => pageErrors.push(err.message));
    await page.goto(dashboardUrl);
    const watches = page.locator('#watches');
    const attr = async (name: string) => Number(await watches.getAttribute(`data-${name}`));
    await expect.poll(() => watches.getAttribute('data-live'), { timeout: 30_000 }).toBe('6');
    await expect.poll(() => webPods(page, 'Running'), { timeout: 30_000 }).toBe(3);
    const shownBefore = new Set((await listWebPods(server)).map((p) => p.name));
    expect(await attr('relists')).toBe(0);

    proxy.cut();
    await expect.poll(() => watches.getAttribute('data-live'), { timeout: 10_000 }).not.toBe('6');
    // Up to 6 and down to 2 while the page is away: new pods, and pods it saw that are gone.
    await scaleWeb(server, 6);
    await expect
      .poll(async () => (await listWebPods(server)).filter((p) => p.phase === 'Running').length, {
        timeout: 30_000,
      })
      .toBe(6);
    await scaleWeb(server, 2);
    await expect.poll(async () => (await listWebPods(server)).length, { timeout: 30_000 }).toBe(2);
    const current = (await listWebPods(server)).map((p) => p.name).sort();
    const gone = [...shownBefore].filter((name) => !current.includes(name));
    expect(gone.length).toBeGreaterThan(0);
    proxy.restore();

    await expect.poll(() => watches.getAttribute('data-live'), { timeout: 30_000 }).toBe('6');
    expect(await attr('relists')).toBeGreaterThanOrEqual(1);
    const chipNames = (selector: string) =>
      page
        .locator(selector)
        .evaluateAll((chips: { getAttribute(name: string): string | null }[]) =>
          chips.map((c) => c.getAttribute('data-name') ?? ''),
        );
    // Under the Deployment and under the nodes: each current pod once, nothing else.
    await expect
      .poll(async () => (await chipNames('[data-deployment="demo/web"] .pod')).sort(), {
        timeout: 30_000,
      })
      .toEqual(current);
    const onNodes = await chipNames('#nodes .pod[data-namespace="demo"]');
    expect(onNodes.filter((name) => name.startsWith('web-')).sort()).toEqual(current);
    const allPods = await fetch(`${server}/api/v1/pods`).then(
      async (res) => ((await res.json()) as { items: unknown[] }).items.length,
    );
    expect(onNodes.length).toBe(new Set(onNodes).size);
    expect(Number(await page.locator('#stat-pods').textContent())).toBe(allPods);
    // The pods gone while it was away are told as deletions, as a reflector's Replace tells them.
    const deleted = await chipNames('#feed [data-kind="pod"][data-type="DELETED"]');
    for (const name of gone) expect(deleted).toContain(name);

    // It watches on from the relist's resourceVersion: a later change arrives as an event.
    const relists = await attr('relists');
    await scaleWeb(server, 3);
    await expect.poll(() => webPods(page, 'Running'), { timeout: 30_000 }).toBe(3);
    expect(await attr('relists')).toBe(relists);
    expect(pageErrors).toEqual([]);

    await stop(demo.child);
    await stop(apiserver);
  } finally {
    await dashboard?.close();
    await proxy?.close();
    dir.remove();
  }
}, 180_000);
