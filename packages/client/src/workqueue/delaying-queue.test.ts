import { describe, expect, it } from 'vitest';
import { FakeClock } from '../util/fake-clock.js';
import { DelayingQueue } from './delaying-queue.js';

// client-go util/workqueue/delaying_queue.go and delaying_queue_test.go.
describe('DelayingQueue', () => {
  it('an item added after a delay appears only once the delay has passed', () => {
    const clock = new FakeClock();
    const q = new DelayingQueue<string>({ clock });
    q.addAfter('a', 100);
    expect(q.len()).toBe(0);
    expect(q.waitingLen()).toBe(1);
    clock.step(99);
    expect(q.len()).toBe(0);
    clock.step(1);
    expect(q.len()).toBe(1);
    expect(q.waitingLen()).toBe(0);
  });

  it('a zero or negative delay adds at once', () => {
    const q = new DelayingQueue<string>({ clock: new FakeClock() });
    q.addAfter('a', 0);
    q.addAfter('b', -5);
    expect(q.len()).toBe(2);
  });

  it('scheduling an item again keeps the earlier time', () => {
    const clock = new FakeClock();
    const q = new DelayingQueue<string>({ clock });
    q.addAfter('a', 100);
    q.addAfter('a', 50);
    q.addAfter('a', 200);
    expect(q.waitingLen()).toBe(1);
    clock.step(50);
    expect(q.len()).toBe(1);
    clock.step(500);
    expect(q.len()).toBe(1);
  });

  it('waiting items are added in the order they fall due', async () => {
    const clock = new FakeClock();
    const q = new DelayingQueue<string>({ clock });
    q.addAfter('late', 30);
    q.addAfter('early', 10);
    q.addAfter('middle', 20);
    q.addAfter('tie', 20);
    clock.step(100);
    const out: string[] = [];
    while (q.len() > 0) out.push((await q.get()).item!);
    expect(out).toEqual(['early', 'middle', 'tie', 'late']);
  });

  it('an item that falls due while already queued is not queued twice', () => {
    const clock = new FakeClock();
    const q = new DelayingQueue<string>({ clock });
    q.add('a');
    q.addAfter('a', 10);
    clock.step(10);
    expect(q.len()).toBe(1);
  });

  it('shutDown drops waiting items and their timer; later addAfter is ignored', () => {
    const clock = new FakeClock();
    const q = new DelayingQueue<string>({ clock });
    q.addAfter('a', 10);
    q.shutDown();
    expect(clock.hasWaiters()).toBe(false);
    q.addAfter('b', 10);
    clock.step(100);
    expect(q.len()).toBe(0);
    expect(q.waitingLen()).toBe(0);
  });

  it('works on real timers', async () => {
    const q = new DelayingQueue<string>();
    q.addAfter('later', 20);
    q.addAfter('sooner', 5);
    expect((await q.get()).item).toBe('sooner');
    expect((await q.get()).item).toBe('later');
    q.shutDown();
  });
});
