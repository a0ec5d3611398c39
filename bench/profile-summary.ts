// Where a child's CPU time went: the functions of a .cpuprofile (BENCH_CPU_PROF=1 pnpm bench …)
// by self time, and by package/file.
//   node --import tsx bench/profile-summary.ts bench/results/profiles/<file>.cpuprofile [top] [--busy]
// --busy: of the time the process worked (no idle, no module loading at start-up), which is
// what a figure per operation is made of; a quick run's profile is otherwise mostly idle.
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const args = process.argv.slice(2);
const busy = args.includes('--busy');
const [file, topArg] = args.filter((a) => a !== '--busy');
if (!file) {
  console.error('usage: profile-summary.ts <file.cpuprofile> [top] [--busy]');
  process.exit(2);
}
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parentOf = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parentOf.set(c, n.id);
/** Frames of the module loaders: a child's start-up, not the work it measures. */
const LOADING = /^node:internal\/modules\/|\/tsx\/dist\//;
const loading = (id: number): boolean => {
  for (let at: number | undefined = id; at !== undefined; at = parentOf.get(at))
    if (LOADING.test(byId.get(at)!.callFrame.url)) return true;
  return false;
};
const self = new Map<string, number>();
const byFile = new Map<string, number>();
let total = 0;
profile.samples.forEach((id, i) => {
  const dt = profile.timeDeltas[i] ?? 0;
  const frame = byId.get(id)!.callFrame;
  if (busy && (frame.functionName === '(idle)' || loading(id))) return;
  total += dt;
  const where = frame.url
    .replace(/^file:\/\//, '')
    .replace(/.*\/node_modules\/\.pnpm\/[^/]+\/node_modules\//, '');
  const name = `${frame.functionName || '(anonymous)'} ${where.replace(/.*\/packages\//, 'packages/')}:${frame.lineNumber + 1}`;
  self.set(name, (self.get(name) ?? 0) + dt);
  const group = where
    ? where
        .replace(/.*\/packages\//, 'packages/')
        .split('/')
        .slice(0, 3)
        .join('/')
    : frame.functionName;
  byFile.set(group, (byFile.get(group) ?? 0) + dt);
});
const top = Number(topArg ?? 25);
const show = (title: string, m: Map<string, number>) => {
  console.log(`\n${title} (of ${(total / 1000).toFixed(0)} ms sampled)`);
  for (const [k, v] of [...m].sort((a, b) => b[1] - a[1]).slice(0, top))
    console.log(`${((100 * v) / total).toFixed(1).padStart(5)}%  ${k}`);
};
show('by self time', self);
show('by package or module', byFile);
