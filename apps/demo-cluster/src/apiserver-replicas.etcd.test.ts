import { EtcdCluster, spawnSource } from '@listwatch/testing';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runDemo } from './testing/run-demo.js';

const appDir = fileURLToPath(new URL('..', import.meta.url));

let etcd: EtcdCluster;
beforeAll(async () => {
  etcd = await EtcdCluster.start();
});
afterAll(() => etcd?.destroy());

it('pnpm demo --apiservers 2 on etcd3: one replica SIGKILLed mid-scenario, the controllers resume through the other without relisting and every step converges', async () => {
  const demo = spawnSource(appDir, 'src/main.ts', [
    '--port',
    '0',
    '--storage-backend',
    'etcd3',
    '--etcd-servers',
    etcd.endpoints.join(','),
    '--apiservers',
    '2',
    '--duration',
    '90',
  ]);
  const child = demo.child;
  const exited = demo.exit;
  const pids = () =>
    [...demo.output().matchAll(/apiserver replica \d on \S+ \(pid (\d+)\)/g)].map((m) =>
      Number(m[1]),
    );
  try {
    await expect.poll(() => pids().length, { timeout: 30_000, interval: 100 }).toBe(2);
    expect(demo.output()).toMatch(
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
    for (const step of [
      /ok\s+scale web up to 5/,
      /ok\s+roll out api with nginx:1\.28/,
      /ok\s+delete a web pod \(it comes back\)/,
      /ok\s+delete Deployment api \(its ReplicaSets and pods go\)/,
      /ok\s+delete namespace scenario-\w+/,
    ])
      expect(demo.output()).toMatch(step);
    expect(demo.output()).toMatch(/scenario: every step converged \(11 steps\)/);
    // The scenario's informers lost their watches with the replica and resumed from their last
    // resourceVersion on the survivor, whose watch cache still held it: no relist.
    const [, restarts, relists] =
      /watch restarts: (\d+)\s+relists: (\d+)/.exec(demo.output()) ?? [];
    expect(Number(restarts)).toBeGreaterThan(0);
    expect(Number(relists)).toBe(0);
    expect(code).toBe(0);
  } finally {
    child.kill('SIGKILL');
    for (const pid of pids()) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
  }
});

it('pnpm demo --apiservers needs the etcd3 backend: the replicas share one etcd', async () => {
  const { code, out } = await runDemo(['--storage-backend', 'memory', '--apiservers', '2']);
  expect(out).toMatch(/--apiservers needs --storage-backend etcd3/);
  expect(code).toBe(1);
});

it('pnpm demo --secure with --apiservers is refused, naming both, before anything starts', async () => {
  const { code, out } = await runDemo([
    '--storage-backend',
    'etcd3',
    '--apiservers',
    '2',
    '--secure',
  ]);
  expect(out).toMatch(/--secure and --apiservers do not go together/);
  expect(code).toBe(1);
});
