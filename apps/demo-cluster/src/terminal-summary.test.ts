import { expect, it } from 'vitest';
import { formatSummary, type SummaryView } from './terminal-summary.js';

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

it('the terminal summary shows a dash for what the apiserver has not told (it is down)', () => {
  const lines = formatSummary({ ...view, stats: {} });
  expect(lines[1]).toBe('events/s 12.4   apiserver events/s –   open watches –');
});
