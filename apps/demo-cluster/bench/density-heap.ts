// The density run's end state, quickly, for a heap snapshot of the apiserver: the density
// scenario's own children (apiserver, nodes, load), pods created, bound and reported Running,
// then one cluster-wide LIST (as the probe makes), a GC, the heap per pod and a snapshot. No
// informers, no probe, no latencies: what the apiserver holds per stored pod, for
// bench/heap-summary.ts.
//   node --conditions=@listwatch/source --import tsx apps/demo-cluster/bench/density-heap.ts \
//     [--pods 3000] [--backend sqlite|memory] [--rate 200] [--out <file.heapsnapshot>]
//   node --import tsx bench/heap-summary.ts <file.heapsnapshot> --per 3000
import { tempDir } from '@listwatch/testing';
import { REPO_ROOT, sleep, type Child } from '../../../bench/proc.js';
import { childForker, startDensityApiserver } from './density.js';

const args = process.argv.slice(2);
const flag = (name: string, fallback: string) => {
  const i = args.indexOf(`--${name}`);
  return i < 0 ? fallback : args[i + 1]!;
};
const pods = Number(flag('pods', '3000'));
const backend = flag('backend', 'sqlite');
const rate = Number(flag('rate', '200'));
const out = flag(
  'out',
  `${REPO_ROOT}bench/results/profiles/density-heap-${backend}-${pods}.heapsnapshot`,
);

const children: Child[] = [];
const dir = tempDir('listwatch-density-heap-');
try {
  const fork = childForker(children);
  const { server, url } = await startDensityApiserver(fork, backend, { dataDir: dir.path });
  const [nodes, load] = await Promise.all([fork('nodes'), fork('load')]);
  const { names } = await nodes.request<{ names: string[] }>('start', {
    url,
    count: Math.ceil(pods / 30),
  });
  await load.request('start', { url, nodeNames: names });
  const before = await server.request<{ rss: number; heap: number }>('memory');
  const created = await load.request<{ failed: number }>('create', { from: 0, to: pods, rate });
  for (let last = -1, same = 0; ; await sleep(1_000)) {
    const running = await nodes.request<number>('running');
    if (running >= pods - created.failed) break;
    same = running === last ? same + 1 : 0;
    if (same >= 30) throw new Error(`${running} / ${pods} pods Running, none more in 30 s`);
    last = running;
  }
  // The probe's cluster-wide LIST: what it leaves cached (the items' encodings) is kept too.
  const list = await (await fetch(`${url}/api/v1/pods`)).arrayBuffer();
  const podJson = (await (await fetch(`${url}/api/v1/namespaces/density-1/pods/pod-1`)).text())
    .length;
  const after = await server.request<{ rss: number; heap: number }>('memory');
  const perPod = ((after.heap - before.heap) * 2 ** 20) / pods;
  console.log(
    `${pods} pods on ${backend}: heap ${before.heap.toFixed(1)} → ${after.heap.toFixed(1)} MB, ` +
      `RSS ${before.rss.toFixed(0)} → ${after.rss.toFixed(0)} MB; ` +
      `heap per pod ${perPod.toFixed(0)} B, pod JSON ${podJson} B (${(perPod / podJson).toFixed(2)}×); ` +
      `LIST ${(list.byteLength / 2 ** 20).toFixed(1)} MB`,
  );
  console.log(await server.request<string>('heapSnapshot', { path: out }));
  await load.request('stop');
  await nodes.request('stop');
} finally {
  for (const child of children.reverse()) await child.close();
  dir.remove();
}
