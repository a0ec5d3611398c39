import {
  curlCode,
  EtcdCluster,
  KUBECTL,
  runProgram,
  spawnSource,
  tempDir,
} from '@listwatch/testing';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { launchChromium } from './testing/browser.js';
import { runDemo } from './testing/run-demo.js';

const appDir = fileURLToPath(new URL('..', import.meta.url));

let etcd: EtcdCluster;
// etcd on its default flags, as the README installs it (no progress notifications for 10
// minutes): `pnpm demo --apiservers 2 --storage-backend etcd3` used to hang starting there.
let defaultFlagsEtcd: EtcdCluster;
beforeAll(async () => {
  etcd = await EtcdCluster.start();
  defaultFlagsEtcd = await EtcdCluster.start(1, { defaultFlags: true });
});
afterAll(async () => {
  await etcd?.destroy();
  await defaultFlagsEtcd?.destroy();
});

it('pnpm demo --apiservers 2 on etcd3 with its default flags: one replica SIGKILLed mid-scenario and restarted, the controllers resume their watches and every step converges', async () => {
  const demo = spawnSource(appDir, 'src/main.ts', [
    '--port',
    '0',
    '--storage-backend',
    'etcd3',
    '--etcd-servers',
    defaultFlagsEtcd.endpoints.join(','),
    '--apiservers',
    '2',
    '--duration',
    '90',
  ]);
  const child = demo.child;
  const exited = demo.exit;
  const restarted: number[] = [];
  const pids = () =>
    [...demo.output().matchAll(/apiserver replica \d on \S+ \(pid (\d+)\)/g)].map((m) =>
      Number(m[1]),
    );
  try {
    await expect.poll(() => pids().length, { timeout: 60_000, interval: 100 }).toBe(2);
    await expect
      .poll(demo.output, { timeout: 30_000, interval: 50 })
      .toMatch(
        /apiserver on http:\/\/127\.0\.0\.1:\d+ \(storage: etcd3 \S+; a balancer over 2 replicas\)/,
      );
    // Mid-run: the Deployments exist and their pods are being scheduled and started.
    await expect
      .poll(demo.output, { timeout: 60_000, interval: 50 })
      .toMatch(/ok\s+create Deployments web \(3\) and api \(2\)/);
    const victim = pids()[0]!;
    process.kill(victim, 'SIGKILL');
    const [code] = (await exited) as [number | null];
    expect(demo.output()).toMatch(
      new RegExp(`apiserver replica 1 \\(pid ${victim}\\) exited \\(SIGKILL\\)`),
    );
    // Restarted as a supervisor would, on its port, and reported.
    const [, restartedPid] =
      /apiserver replica 1 restarted on http:\/\/127\.0\.0\.1:\d+ \(pid (\d+)\)/.exec(
        demo.output(),
      ) ?? [];
    expect(Number(restartedPid)).toBeGreaterThan(0);
    restarted.push(Number(restartedPid));
    for (const step of [
      /ok\s+scale web up to 5/,
      /ok\s+roll out api with nginx:1\.28/,
      /ok\s+delete a web pod \(it comes back\)/,
      /ok\s+delete Deployment api \(its ReplicaSets and pods go\)/,
      /ok\s+delete namespace scenario-\w+/,
    ])
      expect(demo.output()).toMatch(step);
    expect(demo.output()).toMatch(/scenario: every step converged \(13 steps\)/);
    // The scenario's informers lost their watches with the replica and resumed from their last
    // resourceVersion. On the survivor, whose watch cache holds it, that is no relist; a watch the
    // balancer sends to the restarted replica can be a 410 and one relist, as after any kube
    // apiserver restart: on etcd before 3.4.31 a new watch cache starts at the current revision.
    const [, restarts, relists] =
      /watch restarts: (\d+)\s+relists: (\d+)/.exec(demo.output()) ?? [];
    expect(Number(restarts)).toBeGreaterThan(0);
    expect(Number(relists)).toBeLessThanOrEqual(Number(restarts));
    expect(code).toBe(0);
  } finally {
    child.kill('SIGKILL');
    for (const pid of [...pids(), ...restarted]) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
  }
}, 150_000);

// The dashboard's break-it panel (break-it.ts) acts on the running demo; the page's informers
// (@listwatch/client's, their reflectors observed: dashboard/informers.js) show each fault and
// the recovery.
it("the dashboard's break-it panel in Chromium: a replica killed, every watch cut, storage compacted; the page shows its informers' phases, resumes and relists, and every informer watches again", async () => {
  const demo = spawnSource(appDir, 'src/main.ts', [
    '--port',
    '0',
    '--dashboard-port',
    '0',
    '--storage-backend',
    'etcd3',
    '--etcd-servers',
    etcd.endpoints.join(','),
    '--etcd-prefix',
    '/break-it',
    '--apiservers',
    '2',
    '--events',
  ]);
  const out = () => demo.output();
  const pids = () =>
    [...out().matchAll(/apiserver replica \d (?:on|restarted on) \S+ \(pid (\d+)\)/g)].map((m) =>
      Number(m[1]),
    );
  const browser = await launchChromium();
  try {
    await expect.poll(out, { timeout: 60_000, interval: 200 }).toMatch(/dashboard on http/);
    const [, dashboardUrl] = /dashboard on (http:\/\/\S+)/.exec(out()) ?? [];
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const consoleErrors: string[] = [];
    page.on('pageerror', (err) => consoleErrors.push(err.message));
    // A 404 (the favicon's was one) is a console error; a WebSocket refused while a replica is
    // down is the fault injected, and the page retries it.
    page.on('console', (m) => {
      if (m.type() === 'error' && !m.text().startsWith('WebSocket connection to'))
        consoleErrors.push(m.text());
    });
    await page.goto(dashboardUrl!);
    const watches = page.locator('#watches');
    const attr = async (name: string) => Number(await watches.getAttribute(`data-${name}`));
    const allWatching = async () =>
      (await page.locator('#informers tr[data-phase="watching"]').count()) ===
      (await attr('total'));
    await expect.poll(allWatching, { timeout: 30_000 }).toBe(true);
    // Each informer's phase, resourceVersion, cache size, resumes and relists are on the page.
    const configmaps = page.locator('#informers tr[data-informer="configmap"]');
    expect(Number(await configmaps.getAttribute('data-rv'))).toBeGreaterThan(0);
    await expect
      .poll(async () => Number(await configmaps.locator('.size').textContent()), {
        timeout: 30_000,
      })
      .toBeGreaterThan(0);
    // The feed begins with the watch-list's initial state and its initial-events-end bookmark.
    expect(await page.locator('#feed [data-initial="true"]').count()).toBeGreaterThan(0);
    expect(
      await page.locator('#feed [data-type="BOOKMARK"][data-initial-events-end="true"]').count(),
    ).toBeGreaterThan(0);
    // The ConfigMap workload, and each pod's name on its chip.
    await expect
      .poll(() => page.locator('#configmaps [data-configmap^="config-"]').count(), {
        timeout: 30_000,
      })
      .toBeGreaterThan(0);
    const chip = page.locator('[data-deployment="demo/web"] .pod').first();
    await expect.poll(() => chip.count(), { timeout: 30_000 }).toBe(1);
    expect(await chip.textContent()).toBe(await chip.getAttribute('data-name'));

    const recoveries = async () => (await attr('resumes')) + (await attr('relists'));
    const act = async (action: string, said: RegExp) => {
      const before = await page.locator('#break-log li').count();
      await page.click(`[data-action="${action}"]`);
      await expect
        .poll(() => page.locator('#break-log li').count(), { timeout: 10_000 })
        .toBe(before + 1);
      expect(await page.locator('#break-log li').first().textContent()).toMatch(said);
    };

    // A replica SIGKILLed: the watches it served drop and come back through the balancer; the
    // demo restarts the replica.
    let before = await recoveries();
    await act('kill-replica', /SIGKILL apiserver replica 1 \(pid \d+\); the demo restarts it/);
    await expect.poll(out, { timeout: 30_000 }).toMatch(/apiserver replica 1 restarted on/);
    await expect.poll(recoveries, { timeout: 30_000 }).toBeGreaterThan(before);
    await expect.poll(allWatching, { timeout: 30_000 }).toBe(true);

    // Every connection cut at the balancer: every informer resumes (or relists) and watches on.
    before = await recoveries();
    await act('cut-watches', /cut every client connection/);
    await expect
      .poll(recoveries, { timeout: 30_000 })
      .toBeGreaterThanOrEqual(before + (await attr('total')));
    await expect.poll(allWatching, { timeout: 30_000 }).toBe(true);

    // etcd compacted to now, then cut again: they recover whether a watch cache still holds their
    // resourceVersion (resume) or the answer is 410 Gone (relist, shown in the feed).
    await act('compact', /compacted storage at revision \d+/);
    before = await recoveries();
    await act('cut-watches', /cut every client connection/);
    await expect
      .poll(recoveries, { timeout: 30_000 })
      .toBeGreaterThanOrEqual(before + (await attr('total')));
    await expect.poll(allWatching, { timeout: 30_000 }).toBe(true);
    if ((await attr('relists')) > 0)
      expect(await page.locator('#feed [data-type="ERROR"]').count()).toBeGreaterThan(0);

    // The page still shows the cluster as it is, and asked for nothing that is not served.
    await expect
      .poll(() => page.locator('[data-deployment="demo/web"] .pod[data-phase="Running"]').count(), {
        timeout: 30_000,
      })
      .toBe(3);
    expect(await fetch(new URL('favicon.ico', dashboardUrl)).then((r) => r.status)).toBe(200);
    expect(consoleErrors).toEqual([]);
  } finally {
    await browser.close();
    demo.child.kill('SIGKILL');
    for (const pid of pids()) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
  }
}, 180_000);

it('pnpm demo --apiservers needs the etcd3 backend: the replicas share one etcd', async () => {
  const { code, out } = await runDemo(['--storage-backend', 'memory', '--apiservers', '2']);
  expect(out).toMatch(/--apiservers needs --storage-backend etcd3/);
  expect(code).toBe(1);
});

it('pnpm demo --secure --apiservers 2: each replica serves TLS with the demo CA and RBAC, the admin kubeconfig reaches the cluster through the balancer, the components converge, the dashboard shows them in Chromium and each replica refuses the anonymous alike', async () => {
  const dir = tempDir('listwatch-secure-replicas-');
  const demo = spawnSource(appDir, 'src/main.ts', [
    '--secure',
    '--port',
    '0',
    '--dashboard-port',
    '0',
    '--data-dir',
    dir.path,
    '--storage-backend',
    'etcd3',
    '--etcd-servers',
    etcd.endpoints.join(','),
    '--etcd-prefix',
    '/secure-replicas',
    '--apiservers',
    '2',
    '--events',
  ]);
  const out = () => demo.output();
  const exited = demo.exit;
  const replicas = () =>
    [...out().matchAll(/apiserver replica \d on (\S+) \(pid (\d+)\)/g)].map((m) => ({
      url: m[1]!,
      pid: Number(m[2]),
    }));
  const pki = join(dir.path, 'pki');
  const curl = (url: string, ...auth: string[]) =>
    curlCode(url, ['--cacert', join(pki, 'ca.crt'), ...auth]);
  try {
    await expect.poll(out, { timeout: 60_000, interval: 200 }).toMatch(/dashboard on http/);
    const [, server] =
      /apiserver on (https:\/\/127\.0\.0\.1:\d+) \(storage: etcd3 \S+; a balancer over 2 replicas\)/.exec(
        out(),
      ) ?? [];
    expect(server).toBeDefined();
    const [, kubeconfig] = /admin kubeconfig: (\S+)/.exec(out()) ?? [];
    expect(replicas()).toHaveLength(2);
    // Every replica: https only, verified with the demo CA; the admin's certificate is allowed,
    // the anonymous user is not.
    for (const { url } of replicas()) {
      expect(url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
      expect(
        await curl(
          `${url}/api/v1/namespaces`,
          '--cert',
          join(pki, 'admin.crt'),
          '--key',
          join(pki, 'admin.key'),
        ),
      ).toBe(200);
      expect(await curl(`${url}/api/v1/namespaces`)).toBe(403);
    }
    // kubectl as the admin, through the balancer: every connection goes to the next replica, so
    // these commands reach both and each verifies the same serving certificate.
    const kubectl = (...args: string[]) =>
      runProgram(KUBECTL, ['--kubeconfig', kubeconfig!, ...args], {
        env: { PATH: process.env['PATH'] ?? '', HOME: dir.path },
      });
    const whoami = await kubectl('auth', 'whoami', '-o', 'jsonpath={.status.userInfo.username}');
    expect(whoami.stderr, out()).toBe('');
    expect(whoami.stdout).toBe('kubernetes-admin');
    // The components, each as itself under its roles, keep the web Deployment's pods running.
    const running = async () => {
      const res = await kubectl(
        'get',
        'pods',
        '-n',
        'demo',
        '-l',
        'app=web',
        '-o',
        'jsonpath={.items[*].status.phase}',
      );
      return res.stdout.split(' ').filter((phase) => phase === 'Running').length;
    };
    await expect.poll(running, { timeout: 60_000, interval: 500, message: out() }).toBe(3);
    expect((await kubectl('scale', 'deployment', 'web', '-n', 'demo', '--replicas=4')).code).toBe(
      0,
    );
    await expect.poll(running, { timeout: 60_000, interval: 500 }).toBe(4);
    // The dashboard, in a browser, shows the same through its proxy to the balancer.
    const [, dashboardUrl] = /dashboard on (http:\/\/\S+)/.exec(out()) ?? [];
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      await page.goto(dashboardUrl!);
      await expect
        .poll(
          () => page.locator('[data-deployment="demo/web"] .pod[data-phase="Running"]').count(),
          { timeout: 30_000 },
        )
        .toBe(4);
    } finally {
      await browser.close();
    }
    demo.child.kill('SIGTERM');
    const [code] = (await exited) as [number | null];
    expect(code).toBe(0);
  } finally {
    demo.child.kill('SIGKILL');
    for (const { pid } of replicas()) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
    dir.remove();
  }
}, 180_000);
