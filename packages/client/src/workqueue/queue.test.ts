import { describe, expect, it } from 'vitest';
import { settle } from '../testing/fixtures.js';
import { WorkQueue } from './queue.js';

// client-go util/workqueue/queue.go and queue_test.go.
describe('WorkQueue', () => {
  it('an item added while it is waiting is not queued twice', () => {
    const q = new WorkQueue<string>();
    q.add('a');
    q.add('a');
    expect(q.len()).toBe(1);
  });

  it('items come out in the order they first became dirty', async () => {
    const q = new WorkQueue<string>();
    for (const item of ['b', 'a', 'b', 'c', 'a']) q.add(item);
    const out: string[] = [];
    while (q.len() > 0) {
      const { item } = await q.get();
      out.push(item!);
    }
    expect(out).toEqual(['b', 'a', 'c']);
  });

  it('an item added while being processed is held back until done, then queued again', async () => {
    const q = new WorkQueue<string>();
    q.add('a');
    const { item } = await q.get();
    q.add('a');
    expect(q.len()).toBe(0);
    q.done(item!);
    expect(q.len()).toBe(1);
    expect((await q.get()).item).toBe('a');
  });

  it('an item is never handed to two workers at once', async () => {
    const q = new WorkQueue<string>();
    const first = q.get();
    const second = q.get();
    q.add('a');
    expect(await first).toEqual({ item: 'a', shutdown: false });
    q.add('a');
    let secondGot: string | undefined;
    void second.then((r) => (secondGot = r.item));
    await settle();
    expect(secondGot).toBeUndefined();
    q.done('a');
    await settle();
    expect(secondGot).toBe('a');
  });

  it('get waits for an add', async () => {
    const q = new WorkQueue<number>();
    let got: number | undefined;
    const getting = q.get().then((r) => (got = r.item));
    await settle();
    expect(got).toBeUndefined();
    q.add(7);
    await getting;
    expect(got).toBe(7);
  });

  it('strings and numbers compare by value, objects by identity', () => {
    const q = new WorkQueue<unknown>();
    q.add('ns/a');
    q.add(`ns/${'a'}`);
    q.add(1);
    q.add(1);
    q.add({ k: 1 });
    q.add({ k: 1 });
    expect(q.len()).toBe(4);
  });

  it('done for an item that is not being processed changes nothing', async () => {
    const q = new WorkQueue<string>();
    q.add('a');
    q.done('a');
    expect(q.len()).toBe(1);
    await q.get();
    q.done('a');
    q.done('a');
    expect(q.len()).toBe(0);
  });

  it('after shutDown adds are ignored, queued items are still handed out, then shutdown', async () => {
    const q = new WorkQueue<string>();
    q.add('a');
    q.shutDown();
    q.add('b');
    expect(q.shuttingDown()).toBe(true);
    expect(await q.get()).toEqual({ item: 'a', shutdown: false });
    expect(await q.get()).toEqual({ item: undefined, shutdown: true });
  });

  it('shutDown releases every waiting get with shutdown: true', async () => {
    const q = new WorkQueue<string>();
    const waiting = [q.get(), q.get(), q.get()];
    q.shutDown();
    expect(await Promise.all(waiting)).toEqual(Array(3).fill({ item: undefined, shutdown: true }));
  });

  it('shutDownWithDrain resolves only after every item being processed is done', async () => {
    const q = new WorkQueue<string>();
    q.add('a');
    q.add('b');
    await q.get();
    await q.get();
    let drained = false;
    const draining = q.shutDownWithDrain().then(() => (drained = true));
    await settle();
    expect(drained).toBe(false);
    q.done('a');
    await settle();
    expect(drained).toBe(false);
    q.done('b');
    await draining;
    expect(drained).toBe(true);
  });

  it('shutDownWithDrain with nothing being processed resolves at once', async () => {
    const q = new WorkQueue<string>();
    await q.shutDownWithDrain();
    expect(q.shuttingDown()).toBe(true);
  });

  it('shutDown during a drain stops waiting for the drain', async () => {
    const q = new WorkQueue<string>();
    q.add('a');
    await q.get();
    const draining = q.shutDownWithDrain();
    q.shutDown();
    await draining;
    expect(q.shuttingDown()).toBe(true);
  });
});
