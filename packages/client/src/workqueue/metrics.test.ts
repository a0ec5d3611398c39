import { describe, expect, it } from 'vitest';
import { FakeClock } from '../util/fake-clock.js';
import { DelayingQueue } from './delaying-queue.js';
import { InMemoryWorkQueueMetrics } from './metrics.js';
import { WorkQueue } from './queue.js';

// client-go util/workqueue/metrics.go and metrics_test.go.
describe('WorkQueueMetrics', () => {
  it('depth and adds count dirty items; latency and work duration are measured in seconds', async () => {
    const clock = new FakeClock();
    const metrics = new InMemoryWorkQueueMetrics();
    const q = new WorkQueue<string>({ clock, metrics, name: 'test' });
    q.add('a');
    q.add('a');
    q.add('b');
    expect(metrics.adds).toBe(2);
    expect(metrics.depth).toBe(2);
    clock.step(250);
    await q.get();
    expect(metrics.depth).toBe(1);
    expect(metrics.queueLatencies).toEqual([0.25]);
    clock.step(1000);
    q.done('a');
    expect(metrics.workDurations).toEqual([1]);
    q.shutDown();
  });

  it('an add while processing counts in depth until the item is handed out again', async () => {
    const clock = new FakeClock();
    const metrics = new InMemoryWorkQueueMetrics();
    const q = new WorkQueue<string>({ clock, metrics });
    q.add('a');
    await q.get();
    q.add('a');
    expect(metrics.depth).toBe(1);
    q.done('a');
    await q.get();
    expect(metrics.depth).toBe(0);
    expect(metrics.adds).toBe(2);
    q.shutDown();
  });

  it('unfinished work and the longest-running processor are refreshed periodically', async () => {
    const clock = new FakeClock();
    const metrics = new InMemoryWorkQueueMetrics();
    const q = new WorkQueue<string>({ clock, metrics, unfinishedWorkUpdatePeriodMs: 500 });
    q.add('a');
    q.add('b');
    await q.get();
    clock.step(1000);
    await q.get();
    clock.step(500);
    expect(metrics.longestRunningProcessorSeconds).toBe(1.5);
    expect(metrics.unfinishedWorkSeconds).toBe(2);
    q.done('a');
    q.done('b');
    clock.step(500);
    expect(metrics.unfinishedWorkSeconds).toBe(0);
    q.shutDown();
    expect(clock.hasWaiters()).toBe(false);
  });

  it('every delayed add counts as a retry', () => {
    const metrics = new InMemoryWorkQueueMetrics();
    const clock = new FakeClock();
    const q = new DelayingQueue<string>({ clock, metrics });
    q.addAfter('a', 10);
    q.addAfter('a', 0);
    expect(metrics.retries).toBe(2);
    q.shutDown();
  });

  it('without metrics no ticker is started', () => {
    const clock = new FakeClock();
    new WorkQueue<string>({ clock });
    expect(clock.hasWaiters()).toBe(false);
  });
});
