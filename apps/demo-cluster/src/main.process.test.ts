import { spawnSource, tempDir, TSX_NODE_ARGS } from '@listwatch/testing';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { runDemo } from './testing/run-demo.js';

const appDir = fileURLToPath(new URL('..', import.meta.url));

it('pnpm demo --nodes 12 serves the API, runs 3 full kubelets and 9 hollow nodes (simulated-nodes.ts), rolls out the web Deployment on them, writes ConfigMaps and prints the events, then stops cleanly on SIGTERM', async () => {
  const dir = tempDir('listwatch-demo-');
  const demo = spawnSource(appDir, 'src/main.ts', [
    '--port',
    '0',
    '--data-dir',
    dir.path,
    '--interval',
    '50',
    '--nodes',
    '12',
  ]);
  const child = demo.child;
  try {
    await expect
      .poll(demo.output, { timeout: 30_000, interval: 200 })
      .toMatch(/MODIFIED\s+configmap\/config-0/);
    const runningPods = () =>
      new Set(
        [
          ...demo
            .output()
            .matchAll(/MODIFIED\s+pod\/(web-\w+-\w{5})\s+node=\S*node-\d+\s+phase=Running/g),
        ].map((m) => m[1]),
      ).size;
    await expect.poll(runningPods, { timeout: 30_000, interval: 200 }).toBeGreaterThanOrEqual(3);
    expect(demo.output()).toMatch(/apiserver on http:\/\/127\.0\.0\.1:\d+/);
    expect(demo.output()).toMatch(/dashboard on http:\/\/127\.0\.0\.1:\d+\//);
    expect(demo.output()).toMatch(/kubectl --server http:\S+ get pods -n demo -o wide -w/);
    expect(demo.output()).toMatch(/controllers: leading as /);
    expect(demo.output()).toMatch(/ADDED\s+configmap\/config-0/);
    expect(demo.output()).toMatch(/ADDED\s+pod\/web-\w+-\w{5}\s+node=<none>\s+phase=Pending/);
    expect(demo.output()).toMatch(/ADDED\s+deployment\/web\s+desired=3/);
    const url = /apiserver on (http:\/\/\S+)/.exec(demo.output())![1]!;
    const get = async (path: string) => (await fetch(`${url}${path}`)).json();
    const nodes = (await get('/api/v1/nodes')) as { items: { metadata: { name: string } }[] };
    expect(nodes.items.map((n) => n.metadata.name).sort()).toEqual(
      [
        'node-1',
        'node-2',
        'node-3',
        ...Array.from({ length: 9 }, (_, i) => `hollow-node-${i}`),
      ].sort(),
    );
    expect(demo.output()).toMatch(
      /nodes: 9 hollow nodes hollow-node-0…8 \(Node, Lease, pod watch each\)/,
    );
    // Each hollow node renews its Lease in kube-node-lease, as a kubelet does.
    const leases = (await get(
      '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases',
    )) as {
      items: { metadata: { name: string } }[];
    };
    expect(leases.items.map((l) => l.metadata.name)).toContain('hollow-node-8');
    const d = (await get('/apis/apps/v1/namespaces/demo/deployments/web')) as {
      spec: { replicas: number };
    };
    expect(d.spec.replicas).toBe(3);
    const rss = (await get(
      '/apis/apps/v1/namespaces/demo/replicasets?labelSelector=app%3Dweb',
    )) as {
      items: { metadata: { name: string; ownerReferences: { kind: string; name: string }[] } }[];
    };
    expect(rss.items.map((rs) => rs.metadata.ownerReferences)).toEqual([
      [expect.objectContaining({ kind: 'Deployment', name: 'web' })],
    ]);
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    const [code] = (await exited) as [number | null];
    expect(code).toBe(0);
  } finally {
    child.kill('SIGKILL');
    dir.remove();
  }
}, 90_000);

it.each([
  ['memory', ['--storage-backend', 'memory']],
  ['sqlite', ['--data-dir']],
])(
  'pnpm demo --duration 60 on %s runs the scripted scenario, every step converging, and exits 0 with a summary',
  async (_backend, flags) => {
    const dir = tempDir('listwatch-scenario-');
    try {
      const args = flags[0] === '--data-dir' ? ['--data-dir', dir.path] : flags;
      const { code, out } = await runDemo([...args, '--duration', '60']);
      expect(out).toMatch(/scenario: every step converged \(13 steps\)/);
      for (const step of [
        /ok\s+nodes Ready \(3\)/,
        /ok\s+create Deployments web \(3\) and api \(2\)/,
        /ok\s+scale web up to 5/,
        /ok\s+scale web down to 2/,
        /ok\s+roll out api with nginx:1\.28/,
        /ok\s+delete a web pod \(it comes back\)/,
        /ok\s+delete Deployment api \(its ReplicaSets and pods go\)/,
        /ok\s+run Job batch \(3 completions, 2 at a time\) to Complete/,
        /ok\s+CronJob tick \(\*\/1\): its missed run starts at once, completes/,
        /ok\s+delete namespace scenario-\w+/,
      ])
        expect(out).toMatch(step);
      expect(out).toMatch(/events delivered: [1-9]\d*\s+watch restarts: \d+\s+relists: \d+/);
      expect(code).toBe(0);
    } finally {
      dir.remove();
    }
  },
  // At most the scenario's 60 s, and the start and stop around it.
  90_000,
);

it('pnpm demo --duration with too little time exits non-zero, naming the step that did not converge', async () => {
  const { code, out } = await runDemo(['--storage-backend', 'memory', '--duration', '0.5']);
  expect(out).toMatch(/scenario: FAILED at step "[^"]+": \S/);
  expect(out).toMatch(/^FAIL /m);
  expect(code).toBe(1);
});

it('pnpm demo on a terminal draws a live one-screen summary: nodes, deployments desired/ready, events/s and open watches', async () => {
  // `script` gives the demo a pseudo-terminal, as a person's shell does.
  const command = [
    process.execPath,
    ...TSX_NODE_ARGS,
    'src/main.ts',
    '--port',
    '0',
    '--dashboard-port',
    '0',
    '--storage-backend',
    'memory',
  ].join(' ');
  const child = spawn('script', ['-qfec', command, '/dev/null'], {
    cwd: appDir,
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  // The screen as a terminal shows it: the frame drawn after the one clear, then each line
  // rewritten in place (`ESC[<row>;1H ESC[2K <text>`).
  const screen = () => {
    const drawn = (out.split('\x1b[H\x1b[2J').at(-1) ?? '').replace(/\r/g, '');
    const first = drawn.indexOf('\x1b[');
    const lines = (first < 0 ? drawn : drawn.slice(0, first)).split('\n');
    // eslint-disable-next-line no-control-regex -- terminal escapes are what is parsed
    for (const [, row, text] of drawn.matchAll(/\x1b\[(\d+);1H(?:\x1b\[2K([^\x1b]*))?/g))
      if (text !== undefined) lines[Number(row) - 1] = text;
    return lines.join('\n');
  };
  try {
    await expect
      .poll(() => out, { timeout: 30_000, interval: 200 })
      .toMatch(/starting the apiserver…/);
    await expect
      .poll(screen, { timeout: 30_000, interval: 200 })
      .toMatch(/demo\/web\s+ready 3\/3\s+updated 3\s*$/m);
    await expect.poll(screen, { timeout: 10_000, interval: 200 }).toMatch(/open watches \d+/);
    const last = screen();
    expect(last).toMatch(/^listwatch demo cluster\s+apiserver http:\S+\s+dashboard http:\S+/m);
    // The hints printed at start stay above it; only one clear ever happened.
    expect(last).toMatch(/^try: kubectl --server http:\S+ get pods -n demo -o wide -w$/m);
    expect(out.split('\x1b[2J')).toHaveLength(2);
    expect(last).toMatch(/^events\/s \d+\.\d\s+apiserver events\/s \S+\s+open watches \d+/m);
    expect(last).toMatch(/^NODES \(3\)$/m);
    expect(last).toMatch(/^ {2}node-1\s+Ready\s+pods \d+ \(\d+ ready\)$/m);
    expect(last).not.toMatch(/ADDED\s+pod\//);
    const exited = once(child, 'exit');
    process.kill(-child.pid!, 'SIGINT');
    const [code] = (await exited) as [number | null];
    expect(code).toBe(0);
  } finally {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // gone
    }
  }
});

it('pnpm demo --help documents every flag the demo takes, then the apiserver flags', async () => {
  const { code, out } = await runDemo(['--help']);
  expect(code).toBe(0);
  for (const flag of [
    '--interval',
    '--nodes',
    '--duration',
    '--dashboard-port',
    '--events',
    '--server',
    '--apiservers',
  ])
    expect(out).toMatch(new RegExp(`^ {2}${flag} `, 'm'));
  expect(out).toMatch(/--storage-backend/);
});

it('pnpm demo --apiservers 2 --bind-address 0.0.0.0 refuses as the apiserver does: its balancer would serve an anonymous cluster-admin off loopback', async () => {
  const { code, out } = await runDemo([
    '--storage-backend',
    'etcd3',
    '--apiservers',
    '2',
    '--bind-address',
    '0.0.0.0',
  ]);
  expect(out).toMatch(
    /refusing to serve on 0\.0\.0\.0: requests without credentials would be allowed everything/,
  );
  expect(out).not.toMatch(/starting 2 apiserver replicas/);
  expect(code).toBe(1);
});
