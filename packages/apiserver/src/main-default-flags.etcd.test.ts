import { EtcdCluster, spawnSource } from '@listwatch/testing';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// `pnpm apiserver --etcd-servers …` on an etcd started with its DEFAULT FLAGS, as the README's
// `apt-get install etcd-server` runs it: etcd notifies idle watches every 10 minutes and, before
// 3.4.31/3.5.13 (Debian ships 3.4.23), answers progress requests unreliably. kube-apiserver is
// ready on it at once; so must this be (it used to wait for a notification and never serve).

let etcd: EtcdCluster;
beforeAll(async () => {
  etcd = await EtcdCluster.start(1, { defaultFlags: true });
});
afterAll(() => etcd?.destroy());

const WARNING = 'etcd does not answer watch progress requests reliably';

describe('pnpm apiserver on etcd with its default flags', () => {
  it('--etcd-servers alone (etcd3 implied) becomes ready, /readyz 200, warning once what is degraded when etcd cannot answer progress requests', async () => {
    const pkg = fileURLToPath(new URL('..', import.meta.url));
    const run = () =>
      spawnSource(pkg, 'src/main.ts', ['--port=0', '--etcd-servers', etcd.endpoints.join(',')]);
    // Twice: the second start finds the first one's history in etcd (what a restart replays).
    for (const round of [1, 2]) {
      const server = run();
      try {
        await expect
          .poll(server.output, { timeout: 60_000 })
          .toMatch(/serving on http:\/\/127\.0\.0\.1:\d+/);
        const url = /serving on (\S+)/.exec(server.output())![1]!;
        const ready = await fetch(`${url}/readyz`);
        expect(ready.status).toBe(200);
        expect(server.output()).toContain('"storage":"etcd3"');
        const res = await fetch(`${url}/api/v1/namespaces/default/configmaps`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ metadata: { name: `round-${round}` } }),
        });
        expect(res.status).toBe(201);
        const { etcdserver } = (await (await fetch(`${etcd.member.endpoint}/version`)).json()) as {
          etcdserver: string;
        };
        const [, minor, patch] = etcdserver.split('.').map(Number);
        const unreliable = (minor === 4 && patch! < 31) || (minor === 5 && patch! < 13);
        expect(server.output().split(WARNING).length - 1).toBe(unreliable ? 1 : 0);
      } finally {
        server.child.kill('SIGTERM');
        await server.exit;
      }
    }
  }, 180_000);
});
