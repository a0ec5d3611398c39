// `cold-start`: our apiserver started on N Pods already in sqlite and in etcd, until it is ready
// (startApiServer resolved: every watch cache filled; and from the fork of a fresh process to
// /readyz answering 200); then our SharedIndexInformer across a restart of the apiserver: the
// time from the new server being ready to the informer holding a Pod created after it, and the
// LISTs it made (0 more: it resumed its watch from its last resourceVersion).
import { EtcdCluster, tempDir } from '@listwatch/testing';
import type { Scenario } from '../../../bench/lib.js';
import { forkChild, sleep, wallMs, type Child } from '../../../bench/proc.js';

const APISERVER = new URL('./procs/apiserver.ts', import.meta.url);
const INFORMER = new URL('../../client/bench/procs/resume-informer.ts', import.meta.url);
const objects = (quick: boolean) => (quick ? 2_000 : 100_000);

type Options = Record<string, unknown>;

/** A fresh apiserver process on `options`: its start time, and fork → /readyz. */
async function start(
  options: Options,
): Promise<{ child: Child; url: string; startS: number; forkS: number }> {
  const t0 = performance.now();
  const child = await forkChild(APISERVER);
  const { url, readyMs } = await child.request<{ url: string; readyMs: number }>('start', {
    options,
  });
  while ((await fetch(`${url}/readyz`).catch(() => undefined))?.status !== 200) await sleep(10);
  return { child, url, startS: readyMs / 1000, forkS: (performance.now() - t0) / 1000 };
}

async function stop(child: Child): Promise<void> {
  await child.request('stop').catch(() => undefined);
  await child.close();
}

const pod = (name: string) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'default' },
  spec: { containers: [{ name: 'c', image: 'registry.example.com/shop/c:1' }] },
});

export const scenario: Scenario = {
  name: 'cold-start',
  title: 'apiserver start to ready on stored Pods (sqlite, etcd); informer resume across a restart',
  processes: () =>
    'etcd + the apiserver under test (a fresh child each start) + our informer (child); runner polls /readyz',
  rounds: (ctx) => (ctx.quick ? 1 : 3),
  async open(ctx) {
    const n = objects(ctx.quick);
    const etcd = await EtcdCluster.start();
    const dir = tempDir('listwatch-bench-cold-');
    const backends: Record<string, Options> = {
      sqlite: { storageBackend: 'sqlite', dataDir: dir.path },
      etcd3: { storageBackend: 'etcd3', etcdServers: etcd.endpoints, etcdCompactionInterval: 0 },
    };
    try {
      for (const [name, options] of Object.entries(backends)) {
        ctx.progress(`  writing ${n.toLocaleString('en-US')} Pods to ${name}`);
        const s = await start(options);
        await s.child.request('fill', { count: n });
        await stop(s.child);
      }
    } catch (error) {
      await etcd.destroy();
      dir.remove();
      throw error;
    }
    let seq = 0;
    return {
      async round() {
        const metrics: Record<string, number> = { objects: n };
        for (const [name, options] of Object.entries(backends)) {
          const first = await start(options);
          metrics[`${name}_start_to_ready_s`] = first.startS;
          metrics[`${name}_fork_to_readyz_s`] = first.forkS;
          ctx.progress(`  ${name}: ready in ${first.startS.toFixed(2)} s`);
          const informer = await forkChild(INFORMER);
          try {
            const synced = await informer.request<{ lists: number }>('start', { url: first.url });
            // One event through the watch first: a watch that ends within a second having seen
            // nothing relists by rule (client-go's "very short watch"), restart or not.
            const watched = `watched-${seq++}`;
            const before = await fetch(`${first.url}/api/v1/namespaces/default/pods`, {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify(pod(watched)),
            });
            if (before.status !== 201) throw new Error(`create before restart: ${before.status}`);
            await informer.request('added', { name: watched, timeoutMs: 60_000 });
            await sleep(1_000);
            const port = Number(new URL(first.url).port);
            await stop(first.child);
            const again = await start({ ...options, port });
            const readyAt = wallMs();
            const created = `resume-${seq++}`;
            const res = await fetch(`${again.url}/api/v1/namespaces/default/pods`, {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify(pod(created)),
            });
            if (res.status !== 201) throw new Error(`create after restart: ${res.status}`);
            const got = await informer.request<{ at: number; lists: number }>('added', {
              name: created,
              timeoutMs: 120_000,
            });
            metrics[`${name}_informer_resume_s`] = (got.at - readyAt) / 1000;
            metrics[`${name}_relists_after_restart`] = got.lists - synced.lists;
            await stop(again.child);
          } finally {
            await informer.request('stop').catch(() => undefined);
            await informer.close();
          }
        }
        return { metrics };
      },
      async close() {
        await etcd.destroy();
        dir.remove();
      },
    };
  },
};
