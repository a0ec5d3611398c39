// Child process: one client syncing every Pod of a server, measured alone in a fresh process
// (clean heap, --expose-gc): the time to synced and the JS heap it then holds. Each mode's
// modules are imported where used, so the heap holds that client's code and nothing else.
import type { KubeList, KubeObject } from '@listwatch/api';
import { serveParent } from '../../../../bench/proc.js';
import type { Mode } from './informer-modes.js';

const PAGE = 500;

function heapMB(): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with --expose-gc');
  gc();
  gc();
  return process.memoryUsage().heapUsed / 2 ** 20;
}

/** client-go's cache.TransformStripManagedFields: managedFields dropped before an object is stored. */
function stripManagedFields<T>(obj: T): T {
  const meta = (obj as { metadata?: { managedFields?: unknown } }).metadata;
  if (meta?.managedFields) meta.managedFields = undefined;
  return obj;
}

type Run = () => Promise<{ objects: number; keep: unknown }>;

/** Loads what `mode` measures and builds it, unstarted: neither is timed. */
async function prepare(mode: Mode, url: string): Promise<Run> {
  switch (mode) {
    case 'ours: SharedIndexInformer':
    case 'ours: SharedIndexInformer + stripManagedFields':
    case 'ours: SharedIndexInformer + slimLists': {
      const { findBuiltinResource } = await import('@listwatch/api');
      const { RestClient, SharedIndexInformer } = await import('../../src/index.js');
      const client = new RestClient({
        server: url,
        ...(mode === 'ours: SharedIndexInformer + slimLists' ? { slimLists: true } : {}),
      });
      const informer = new SharedIndexInformer({
        listerWatcher: client.resource(findBuiltinResource('pods')!).namespace('').listerWatcher(),
        resource: { group: '', resource: 'pods' },
        ...(mode === 'ours: SharedIndexInformer + stripManagedFields'
          ? { transform: stripManagedFields }
          : {}),
      });
      return async () => {
        informer.start();
        await informer.waitForCacheSync();
        return { objects: informer.getIndexer().listKeys().length, keep: informer };
      };
    }
    case 'ours: makeInformer': {
      const { KubeConfig, makeInformer } = await import('../../src/index.js');
      const kc = new KubeConfig({
        clusters: [{ name: 'bench', server: url }],
        users: [{ name: 'bench' }],
        contexts: [{ name: 'bench', cluster: 'bench', user: 'bench' }],
        currentContext: 'bench',
      });
      const informer = makeInformer(kc, '/api/v1/pods');
      informer.on('add', () => undefined);
      return async () => {
        await informer.start();
        return { objects: informer.list().length, keep: informer };
      };
    }
    case 'client-node': {
      const k8s = await import('@kubernetes/client-node');
      const kc = new k8s.KubeConfig();
      kc.loadFromOptions({
        clusters: [{ name: 'bench', server: url, skipTLSVerify: true }],
        users: [{ name: 'bench' }],
        contexts: [{ name: 'bench', cluster: 'bench', user: 'bench' }],
        currentContext: 'bench',
      });
      const api = kc.makeApiClient(k8s.CoreV1Api);
      const informer = k8s.makeInformer(kc, '/api/v1/pods', () => api.listPodForAllNamespaces());
      informer.on('add', () => undefined);
      return async () => {
        await informer.start();
        return { objects: informer.list().length, keep: informer };
      };
    }
    case 'bare': {
      const { request } = await import('undici');
      return async () => {
        // What our informer's first LIST sends: resourceVersion=0, pages of 500.
        const items: unknown[] = [];
        let token = '';
        do {
          const query = token
            ? `limit=${PAGE}&continue=${encodeURIComponent(token)}`
            : `limit=${PAGE}&resourceVersion=0`;
          const res = await request(`${url}/api/v1/pods?${query}`, {
            headers: { accept: 'application/json' },
          });
          // Bytes, then one string: JSON.parse over undici's text() keeps that whole string
          // alive (+ the response size in heap), which would flatter everyone else.
          const bytes = Buffer.from(await res.body.arrayBuffer());
          const page = JSON.parse(bytes.toString('utf8')) as KubeList;
          for (const item of page.items) items.push(item);
          token = page.metadata.continue ?? '';
        } while (token);
        return { objects: items.length, keep: items };
      };
    }
    case 'decode floor': {
      // The least any client that keeps plain JSON.parse objects can do: the same first LIST
      // received over the same kind of connection and parsed in ~100 KB batches of items as it
      // arrives, kept. No cache, no slimming, no handlers. Chunks come by 'data' events, as our
      // client reads them: async iteration concatenates buffered chunks (Readable.read), a few
      // percent slower. One JSON.parse of the whole body measured slower still (a 5,000-Pod
      // LIST: 300 ms of CPU against 256 ms) and keeps ~1× the body more heap.
      const { request } = await import('undici');
      const { finished } = await import('node:stream/promises');
      const { JsonListDecoder } = await import('@listwatch/codec');
      return async () => {
        const res = await request(`${url}/api/v1/pods?limit=${PAGE}&resourceVersion=0`, {
          headers: { accept: 'application/json' },
        });
        const decoder = new JsonListDecoder<KubeObject>();
        res.body.on('data', (chunk: Buffer) => decoder.push(chunk));
        await finished(res.body);
        const list = decoder.end();
        if ((list['metadata'] as { continue?: string } | undefined)?.continue)
          throw new Error('the floor needs the whole list in one response (RV=0 ignores limit)');
        return { objects: list.items?.length ?? 0, keep: list };
      };
    }
  }
}

let kept: unknown;

serveParent({
  async measure(args) {
    const { mode, url } = args as { mode: Mode; url: string };
    const run = await prepare(mode, url);
    const baseMB = heapMB();
    const cpu = process.cpuUsage();
    const start = performance.now();
    const { objects, keep } = await run();
    const seconds = (performance.now() - start) / 1000;
    const used = process.cpuUsage(cpu);
    kept = keep; // held until the heap is measured
    return {
      objects,
      seconds,
      cpuSeconds: (used.user + used.system) / 1e6,
      heapMB: heapMB(),
      baseMB,
    };
  },
  // Leave watches and sockets behind: the process is done.
  exit: () => setImmediate(() => process.exit(kept ? 0 : 0)),
});
