// Initial sync of an informer over 50,000 realistic Pods from our apiserver (memory storage), side
// by side in one run: our SharedIndexInformer and makeInformer, @kubernetes/client-node 1.4's
// makeInformer, the bare cost (the same paginated LIST fetched and JSON.parse'd, nothing else)
// and the decode floor (the LIST received and parsed as it arrives, kept, nothing else). Each
// measurement runs in a child process of its own (clean heap, --expose-gc), after a few seconds'
// pause for the machine to settle; rounds in rotating order, medians reported.
// `pnpm --filter @listwatch/client bench` (PODS=… ROUNDS=… to change the size). To profile one
// client: run this file with `serve`, then `node --expose-gc --cpu-prof
// --conditions=@listwatch/source --import tsx bench/informer.bench.ts child 'ours: makeInformer'
// <url>`.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { KubeList, KubeObject } from '@listwatch/api';

// Every module is imported where it is used: a child loads only the client it measures, so the
// heap it reports holds that client's code and nothing else.

const PODS = Number(process.env['PODS'] ?? 50_000);
const ROUNDS = Number(process.env['ROUNDS'] ?? 3);
const PAGE = 500;
const MODES = [
  'ours: SharedIndexInformer',
  'ours: makeInformer',
  'client-node',
  'bare',
  'decode floor',
] as const;
type Mode = (typeof MODES)[number];

interface Result {
  mode: Mode;
  objects: number;
  seconds: number;
  /** JS heap used after a forced GC, once synced. */
  heapMB: number;
  /** The same before the sync started: runtime and the client's code. */
  baseMB: number;
}

const quiet = { debug() {}, info() {}, warn() {}, error() {} };

function heapMB(): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with --expose-gc');
  gc();
  gc();
  return process.memoryUsage().heapUsed / 2 ** 20;
}

// --- the measured clients, one per child process ---------------------------------------------

type Run = () => Promise<{ objects: number; keep: unknown }>;

/** Loads what `mode` measures and builds it, unstarted: neither is timed. */
async function prepare(mode: Mode, url: string): Promise<Run> {
  switch (mode) {
    case 'ours: SharedIndexInformer': {
      const { findBuiltinResource } = await import('@listwatch/api');
      const { RestClient, SharedIndexInformer } = await import('../src/index.js');
      const client = new RestClient({ server: url });
      const informer = new SharedIndexInformer({
        listerWatcher: client.resource(findBuiltinResource('pods')!).namespace('').listerWatcher(),
        resource: { group: '', resource: 'pods' },
      });
      return async () => {
        informer.start();
        await informer.waitForCacheSync();
        return { objects: informer.getIndexer().listKeys().length, keep: informer };
      };
    }
    case 'ours: makeInformer': {
      const { KubeConfig, makeInformer } = await import('../src/index.js');
      const kc = new KubeConfig({
        clusters: [{ name: 'bench', server: url }],
        users: [{ name: 'bench' }],
        contexts: [{ name: 'bench', cluster: 'bench', user: 'bench' }],
        currentContext: 'bench',
      });
      const informer = makeInformer(kc, '/api/v1/pods');
      let added = 0;
      informer.on('add', () => void added++);
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
      let added = 0;
      informer.on('add', () => void added++);
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
      // arrives, kept. No cache, no slimming, no handlers. client-node's time over this one is
      // the most any such client could be faster by, in this run on this machine.
      const { request } = await import('undici');
      const { JsonListDecoder } = await import('@listwatch/codec');
      return async () => {
        const res = await request(`${url}/api/v1/pods?limit=${PAGE}&resourceVersion=0`, {
          headers: { accept: 'application/json' },
        });
        const decoder = new JsonListDecoder<KubeObject>();
        for await (const chunk of res.body) decoder.push(chunk as Buffer);
        const list = decoder.end();
        if ((list['metadata'] as { continue?: string } | undefined)?.continue)
          throw new Error('the floor needs the whole list in one response (RV=0 ignores limit)');
        return { objects: list.items?.length ?? 0, keep: list };
      };
    }
  }
}

async function measure(mode: Mode, url: string): Promise<Result> {
  const run = await prepare(mode, url);
  const baseMB = heapMB();
  const start = performance.now();
  const { objects, keep } = await run();
  const seconds = (performance.now() - start) / 1000;
  const result = { mode, objects, seconds, heapMB: heapMB(), baseMB };
  void keep; // held until the heap is measured
  return result;
}

async function child(mode: Mode, url: string): Promise<void> {
  const result = await measure(mode, url);
  process.stdout.write(`${JSON.stringify(result)}\n`);
  process.exit(0); // leave watches and sockets behind: the process is done
}

// --- the parent: server, rounds, table ---------------------------------------------------------

/** Between children: how long the machine gets to settle (SETTLE_MS to change). */
const SETTLE_MS = Number(process.env['SETTLE_MS'] ?? 3000);

async function runChild(mode: Mode, url: string): Promise<Result> {
  // The server's garbage from the previous child (a LIST allocates its size again) is collected
  // now, not during the next measurement.
  (globalThis as { gc?: () => void }).gc?.();
  // And the memory the previous child freed goes back to the system first: on a VM that returns
  // freed pages to its host a few seconds later, that work would land on the next child.
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  return new Promise((resolve, reject) => {
    const proc = spawn(
      process.execPath,
      [
        '--expose-gc',
        '--max-old-space-size=8192',
        '--conditions=@listwatch/source',
        '--import',
        'tsx',
        fileURLToPath(import.meta.url),
        'child',
        mode,
        url,
      ],
      // From the package, where `--import tsx` resolves.
      { cwd: fileURLToPath(new URL('..', import.meta.url)), stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let out = '';
    proc.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    proc.on('error', reject);
    proc.on('exit', (code) => {
      const line = out.trim().split('\n').at(-1) ?? '';
      if (code !== 0 || !line.startsWith('{')) reject(new Error(`${mode}: exit ${code}\n${out}`));
      else resolve(JSON.parse(line) as Result);
    });
  });
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** `min–max` of `values`. */
function range(values: number[], digits: number): string {
  return `${Math.min(...values).toFixed(digits)}–${Math.max(...values).toFixed(digits)}`;
}

/** `serve`: only start the loaded apiserver, to profile a child by hand (see the header). */
async function main(serveOnly: boolean): Promise<void> {
  const { startApiServer } = await import('@listwatch/apiserver');
  const { samplePod } = await import('@listwatch/codec');
  const { MemoryStorage } = await import('@listwatch/storage');
  const setup = performance.now();
  const storage = new MemoryStorage({ compactionInterval: 0 });
  let bytes = 0;
  for (let i = 0; i < PODS; i++) {
    const pod: KubeObject = samplePod(i);
    delete pod.metadata.resourceVersion;
    bytes += JSON.stringify(pod).length;
    await storage.create(
      `${storage.prefix}/pods/${pod.metadata.namespace}/${pod.metadata.name}`,
      pod,
    );
  }
  const server = await startApiServer({ port: 0, storage, logger: quiet });
  console.log(
    `${PODS} pods (${(bytes / 2 ** 20).toFixed(0)} MB of JSON) in the apiserver at ${server.url}, ` +
      `ready in ${((performance.now() - setup) / 1000).toFixed(1)} s; ${ROUNDS} rounds\n`,
  );
  if (serveOnly) return; // serves until killed
  // Warm the server's LIST paths up before anything is measured.
  await runChild('bare', server.url);

  const results = new Map<Mode, Result[]>(MODES.map((m) => [m, []]));
  for (let round = 0; round < ROUNDS; round++) {
    const order = MODES.map((_, i) => MODES[(i + round) % MODES.length]!);
    for (const mode of order) {
      const r = await runChild(mode, server.url);
      if (r.objects !== PODS) throw new Error(`${mode} synced ${r.objects} objects, not ${PODS}`);
      results.get(mode)!.push(r);
      console.log(
        `  round ${round + 1} ${mode.padEnd(26)} ${r.seconds.toFixed(2)} s  ${r.heapMB.toFixed(0)} MB`,
      );
    }
  }
  await server.close();

  const med = new Map(
    MODES.map((m) => {
      const rs = results.get(m)!;
      const all = rs.map((r) => r.seconds);
      return [
        m,
        {
          seconds: median(all),
          all,
          heapMB: median(rs.map((r) => r.heapMB)),
          baseMB: median(rs.map((r) => r.baseMB)),
        },
      ];
    }),
  );
  console.log(
    `\n${'client'.padEnd(26)} ${'seconds'.padStart(8)} ${'range'.padStart(12)} ${'objects/s'.padStart(10)} ` +
      `${'heap MB'.padStart(8)} ${'(code)'.padStart(7)}`,
  );
  for (const [mode, m] of med) {
    console.log(
      `${mode.padEnd(26)} ${m.seconds.toFixed(2).padStart(8)} ${range(m.all, 2).padStart(12)} ` +
        `${Math.round(PODS / m.seconds)
          .toLocaleString('en-US')
          .padStart(10)} ${m.heapMB.toFixed(0).padStart(8)} ${m.baseMB.toFixed(0).padStart(7)}`,
    );
  }
  const node = med.get('client-node')!;
  const bare = med.get('bare')!;
  const floor = med.get('decode floor')!;
  const floorPerRound = floor.all.map((s, i) => node.all[i]! / s);
  console.log(
    '\nratios (targets: ≥ 3× faster than client-node, ≤ 1.5× bare, heap ≤ 0.6× client-node)',
  );
  for (const mode of ['ours: SharedIndexInformer', 'ours: makeInformer'] as const) {
    const m = med.get(mode)!;
    // The same ratio within each round: how far the machine's noise moves it.
    const perRound = m.all.map((s, i) => node.all[i]! / s);
    console.log(
      `${mode.padEnd(26)} ${(node.seconds / m.seconds).toFixed(2)}× faster than client-node ` +
        `(within a round: median ${median(perRound).toFixed(2)}×, ${range(perRound, 2)}), ` +
        `${(m.seconds / bare.seconds).toFixed(2)}× the bare parse, ` +
        `heap ${(m.heapMB / node.heapMB).toFixed(2)}× client-node's, ` +
        `${(m.seconds / floor.seconds).toFixed(2)}× the decode floor`,
    );
  }
  console.log(
    `${'decode floor'.padEnd(26)} ${(node.seconds / floor.seconds).toFixed(2)}× faster than client-node ` +
      `(within a round: median ${median(floorPerRound).toFixed(2)}×, ${range(floorPerRound, 2)}): ` +
      'the ceiling for any client that parses JSON into plain objects',
  );
}

if (process.argv[2] === 'child') await child(process.argv[3] as Mode, process.argv[4]!);
else await main(process.argv[2] === 'serve');
