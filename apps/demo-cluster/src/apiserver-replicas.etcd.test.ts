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
