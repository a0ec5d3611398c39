import { expect, it } from 'vitest';
import { formatSummary, renderFrame, type SummaryView } from './terminal-summary.js';

const view: SummaryView = {
  apiserver: 'http://127.0.0.1:8080',
  dashboard: 'http://127.0.0.1:8081/',
  nodes: [
    { name: 'node-1', schedulable: true, pods: 2, ready: 1 },
    { name: 'node-2', schedulable: false, pods: 0, ready: 0 },
  ],
  deployments: [
    { name: 'demo/api', desired: 2, ready: 2, updated: 2 },
    { name: 'demo/web', desired: 5, ready: 3, updated: 3 },
  ],
  eventsPerSecond: 12.4,
  stats: { openWatches: 27, watchEventsPerSecond: 40 },
  notes: ['controllers: leading as host_1'],
};

it('the terminal summary shows the URLs, nodes with their pods, deployments desired/ready, events/s and open watches on one screen', () => {
  const lines = formatSummary(view);
  expect(lines[0]).toBe(
    'listwatch demo cluster   apiserver http://127.0.0.1:8080   dashboard http://127.0.0.1:8081/',
  );
  expect(lines[1]).toBe('events/s 12.4   apiserver events/s 40.0   open watches 27');
  expect(lines).toContain('  node-1       Ready     pods 2 (1 ready)');
  expect(lines).toContain('  node-2       NotReady  pods 0 (0 ready)');
  expect(lines).toContain('  demo/api                 ready 2/2       updated 2');
  expect(lines).toContain('  demo/web                 ready 3/5       updated 3     (rolling out)');
  expect(lines).toContain('controllers: leading as host_1');
  expect(lines.length).toBeLessThan(24);
});

it('the terminal summary counts the nodes on one line when there are too many to list (pnpm demo --nodes 1000)', () => {
  const nodes = Array.from({ length: 1000 }, (_, i) => ({
    name: `hollow-node-${i}`,
    schedulable: i !== 7,
    pods: i < 3 ? 2 : 0,
    ready: 0,
  }));
  const lines = formatSummary({ ...view, nodes });
  expect(lines).toContain('NODES (1000)');
  expect(lines).toContain('  999 Ready, 1 NotReady; 6 pods on them');
  expect(lines.length).toBeLessThan(24);
});

it('the terminal summary shows a dash for what the apiserver has not told (it is down)', () => {
  const lines = formatSummary({ ...view, stats: {} });
  expect(lines[1]).toBe('events/s 12.4   apiserver events/s –   open watches –');
});

it('the terminal summary clears the screen once, then rewrites only the lines that changed: an unchanged frame writes nothing, the hints above stay', () => {
  const hints = ['dashboard on http://127.0.0.1:8081/', 'try: kubectl get pods -A'];
  const first = [...hints, '', ...formatSummary(view)];
  const drawn = renderFrame(undefined, first);
  expect(drawn.startsWith('\x1b[H\x1b[2J')).toBe(true);
  expect(drawn).toContain('try: kubectl get pods -A');
  expect(renderFrame(first, first)).toBe('');
  const next = [...hints, '', ...formatSummary({ ...view, eventsPerSecond: 3 })];
  const update = renderFrame(first, next);
  // Only the rates line (row 5: two hints, a blank, the title, then it) is written, never a clear.
  expect(update).not.toContain('\x1b[2J');
  expect(update).not.toContain('try: kubectl');
  expect(update).toBe(`\x1b[5;1H\x1b[2K${next[4]}\x1b[${next.length + 1};1H`);
  // A shorter frame blanks the rows it no longer has.
  const shorter = renderFrame(next, next.slice(0, -1));
  expect(shorter).toBe(`\x1b[${next.length};1H\x1b[2K\x1b[${next.length};1H`);
});
