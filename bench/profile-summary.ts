// Where a child's CPU time went: the functions of a .cpuprofile (BENCH_CPU_PROF=1 pnpm bench …)
// by self time, and by package/file.
//   node --import tsx bench/profile-summary.ts bench/results/profiles/<file>.cpuprofile [top]
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const [file, topArg] = process.argv.slice(2);
if (!file) {
  console.error('usage: profile-summary.ts <file.cpuprofile> [top]');
  process.exit(2);
}
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const self = new Map<string, number>();
const byFile = new Map<string, number>();
let total = 0;
profile.samples.forEach((id, i) => {
  const dt = profile.timeDeltas[i] ?? 0;
  total += dt;
  const frame = byId.get(id)!.callFrame;
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
