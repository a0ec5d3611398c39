import { jsonLogger, startApiServer, type RunningApiServer } from '@listwatch/apiserver';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BreakIt } from './break-it.js';
import { DashboardServer, sumMetric } from './dashboard-server.js';

describe('sumMetric', () => {
  it('sums a metric over its label sets and ignores metrics whose names it prefixes', () => {
    const text = [
      '# HELP apiserver_longrunning_requests Open watches.',
      '# TYPE apiserver_longrunning_requests gauge',
      'apiserver_longrunning_requests{resource="pods",transport="http1"} 3',
      'apiserver_longrunning_requests{resource="nodes",transport="websocket"} 2',
      'apiserver_longrunning_requests_other 100',
      'apiserver_longrunning_requests 1',
    ].join('\n');
    expect(sumMetric(text, 'apiserver_longrunning_requests')).toBe(6);
    expect(sumMetric(text, 'absent')).toBeUndefined();
  });
});

describe('DashboardServer', () => {
  let apiserver: RunningApiServer;
  let dashboard: DashboardServer;
  let url: string;
  beforeAll(async () => {
    apiserver = await startApiServer({
      port: 0,
      storageBackend: 'memory',
      logger: jsonLogger('warn'),
    });
    dashboard = new DashboardServer(
      apiserver.url,
      undefined,
      new BreakIt({ storage: apiserver.storage }),
    );
    url = await dashboard.listen('127.0.0.1', 0);
  });
  afterAll(async () => {
    await dashboard.close();
    await apiserver.close();
  });

  it('serves the page, its modules and the apiserver URL, and nothing else', async () => {
    const page = await fetch(url);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await page.text()).toMatch(/<script type="module" src="dashboard.js">/);
    for (const file of ['dashboard.js', 'informers.js', 'client.js'])
      expect((await fetch(`${url}${file}`)).headers.get('content-type')).toMatch(
        /^text\/javascript/,
      );
    expect(await (await fetch(`${url}config.json`)).json()).toEqual({ apiserver: apiserver.url });
    expect((await fetch(`${url}package.json`)).status).toBe(404);
    expect((await fetch(`${url}src/main.ts`)).status).toBe(404);
    expect((await fetch(url, { method: 'PUT' })).status).toBe(405);
    // Browsers ask for it whatever the page links (a 404 is a console error).
    const icon = await fetch(`${url}favicon.ico`);
    expect([icon.status, icon.headers.get('content-type')]).toEqual([200, 'image/svg+xml']);
  });

  it("serves @listwatch/client bundled for the browser as client.js: the informer and REST client the page imports, no Node built-in, and nothing the page's CSP (no 'unsafe-eval') refuses", async () => {
    const res = await fetch(`${url}client.js`);
    expect(res.status).toBe(200);
    const js = await res.text();
    expect(js).toMatch(/export\s*\{[^}]*\bSharedIndexInformer\b/);
    expect(js).not.toMatch(/from\s*["']node:|require\(["']node:/);
    // cbor-x's default build probes `new Function('')` on import: a CSP violation in the console.
    expect(js).not.toMatch(/new Function\(|\beval\(/);
  });

  it("takes the break-it panel's actions only from a page of its own origin: storage is compacted to the current revision", async () => {
    const origin = new URL(url).origin;
    const post = (path: string, headers: Record<string, string>) =>
      fetch(`${url}${path}`, { method: 'POST', headers });
    expect((await post('break-it/compact', {})).status).toBe(403);
    expect((await post('break-it/compact', { origin: 'http://attacker.example' })).status).toBe(
      403,
    );
    expect((await post('break-it/nothing', { origin })).status).toBe(404);
    const actions = (await (await fetch(`${url}break-it.json`)).json()) as {
      actions: { id: string; available: boolean }[];
    };
    // Without --apiservers there is no replica to kill, and the page cuts its own watches.
    expect(actions.actions.map((a) => [a.id, a.available])).toEqual([
      ['kill-replica', false],
      ['restart-replica', false],
      ['cut-watches', true],
      ['compact', true],
    ]);
    expect(await (await post('break-it/cut-watches', { origin })).json()).toMatchObject({
      cutPage: true,
    });
    const revision = await apiserver.storage.currentRevision();
    const res = await post('break-it/compact', { origin });
    expect(await res.json()).toEqual({ message: `compacted storage at revision ${revision}` });
    expect(apiserver.storage.compactRevision()).toBe(revision);
  });

  it('answers only requests naming a loopback host (no DNS rebinding)', async () => {
    const { port } = new URL(url);
    const status = (host: string) =>
      new Promise<number>((resolve, reject) =>
        request({ host: '127.0.0.1', port, path: '/config.json', headers: { host } }, (res) => {
          res.resume();
          resolve(res.statusCode!);
        })
          .on('error', reject)
          .end(),
      );
    expect(await status(`localhost:${port}`)).toBe(200);
    expect(await status(`127.0.0.1:${port}`)).toBe(200);
    expect(await status(`attacker.example:${port}`)).toBe(403);
  });

  it("reports the apiserver's open watches from its metrics, and nothing while it is down", async () => {
    const controller = new AbortController();
    const watch = await fetch(`${apiserver.url}/api/v1/pods?watch=1`, {
      signal: controller.signal,
    });
    expect(watch.status).toBe(200);
    await expect
      .poll(async () => (await dashboard.stats()).openWatches, { timeout: 5000 })
      .toBeGreaterThanOrEqual(1);
    controller.abort();
    expect(await new DashboardServer('http://127.0.0.1:1').stats()).toEqual({});
  });
});
