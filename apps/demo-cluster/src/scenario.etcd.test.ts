import { EtcdCluster } from '@listwatch/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runDemo } from './testing/run-demo.js';

let etcd: EtcdCluster;
beforeAll(async () => {
  etcd = await EtcdCluster.start();
});
afterAll(() => etcd?.destroy());

it('pnpm demo --duration 60 on etcd3 runs the scripted scenario, every step converging, and exits 0', async () => {
  const { code, out } = await runDemo([
    '--storage-backend',
    'etcd3',
    '--etcd-servers',
    etcd.endpoints.join(','),
    '--duration',
    '60',
  ]);
  expect(out).toMatch(/scenario: every step converged \(13 steps\)/);
  expect(out).toMatch(/ok\s+delete namespace scenario-\w+/);
  expect(code).toBe(0);
}, 90_000);
