import type { KubeObject } from '@listwatch/api';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { eventually } from '../testing/eventually.js';
import { configMap } from '../testing/fixtures.js';
import { DeletedFinalStateUnknown } from './deleted-final-state-unknown.js';
import { ProcessorListener, type EventHandler, type Notification } from './processor-listener.js';

/** An informer's cache and the notifications it would distribute for each change. */
class Source {
  readonly cache = new Map<string, KubeObject>();
  private rv = 0;
  private uid = 0;

  put(name: string, recreate: boolean): Notification {
    const key = `ns/${name}`;
    const old = this.cache.get(key);
    const obj = configMap('ns', name, String(++this.rv));
    obj.metadata.uid = old && !recreate ? old.metadata.uid! : `uid-${++this.uid}`;
    this.cache.set(key, obj);
    return old
      ? { type: 'update', oldObj: old, newObj: obj }
      : { type: 'add', obj, isInInitialList: false };
  }

  delete(name: string): Notification | undefined {
    const key = `ns/${name}`;
    const old = this.cache.get(key);
    if (!old) return undefined;
    this.cache.delete(key);
    return { type: 'delete', obj: old };
  }

  get store() {
    return { getByKey: (k: string) => this.cache.get(k), listKeys: () => [...this.cache.keys()] };
  }
}

/**
 * A handler that checks every notification against what it was told before: an add for a key
 * it does not know, an update whose old object is exactly the one it holds, a delete of a key it
 * knows. It is slow: every call takes a macrotask.
 */
function checkingHandler(violations: string[]): {
  handler: EventHandler;
  view: Map<string, KubeObject>;
} {
  const view = new Map<string, KubeObject>();
  const key = (o: KubeObject) => `${o.metadata.namespace}/${o.metadata.name}`;
  const slow = () => new Promise<void>((resolve) => setImmediate(resolve));
  const handler: EventHandler = {
    onAdd: async (obj) => {
      if (view.has(key(obj))) violations.push(`add of known ${key(obj)}`);
      view.set(key(obj), obj);
      await slow();
    },
    onUpdate: async (oldObj, newObj) => {
      if (view.get(key(newObj)) !== oldObj)
        violations.push(`update of ${key(newObj)} from a state it never saw`);
      view.set(key(newObj), newObj);
      await slow();
    },
    onDelete: async (obj) => {
      const k = obj instanceof DeletedFinalStateUnknown ? obj.key : key(obj);
      const last = obj instanceof DeletedFinalStateUnknown ? obj.obj : obj;
      if (view.get(k) !== last) violations.push(`delete of ${k} with an object it never saw`);
      view.delete(k);
      await slow();
    },
  };
  return { handler, view };
}

const commands = fc.array(
  fc.oneof(
    fc.record({
      op: fc.constant('put' as const),
      name: fc.constantFrom('a', 'b', 'c', 'd', 'e'),
      recreate: fc.boolean(),
    }),
    fc.record({
      op: fc.constant('delete' as const),
      name: fc.constantFrom('a', 'b', 'c', 'd', 'e'),
    }),
    fc.constant({ op: 'yield' as const }),
  ),
  { maxLength: 60 },
);

async function drain(listener: ProcessorListener): Promise<void> {
  await eventually(() => {
    const m = listener.metrics();
    expect(m.buffered + m.pendingKeys).toBe(0);
  });
  // The last delivery may still be inside the (slow) handler.
  await new Promise((resolve) => setImmediate(resolve));
  await new Promise((resolve) => setImmediate(resolve));
}

describe('ProcessorListener (client-go processorListener, bounded)', () => {
  it('converges every handler to the cache and never tells a handler about a state it did not see, whatever the buffer size', async () => {
    await fc.assert(
      fc.asyncProperty(
        commands,
        fc.integer({ min: 1, max: 8 }),
        fc.boolean(),
        async (cmds, bufferSize, lateStart) => {
          const source = new Source();
          const violations: string[] = [];
          const { handler, view } = checkingHandler(violations);
          const listener = new ProcessorListener(handler, {
            name: 'h',
            bufferSize,
            cache: source.store,
            upstreamSynced: () => true,
          });
          if (lateStart) {
            // Some state exists before the handler registers: it is replayed as initial adds.
            source.put('a', false);
            source.put('z', false);
            listener.replayCache();
          }
          void listener.run();
          for (const cmd of cmds) {
            if (cmd.op === 'yield') {
              await new Promise((resolve) => setImmediate(resolve));
              continue;
            }
            const n =
              cmd.op === 'put' ? source.put(cmd.name, cmd.recreate) : source.delete(cmd.name);
            if (n) listener.add(n);
          }
          await drain(listener);
          await listener.stop();
          expect(violations).toEqual([]);
          expect(new Map(view)).toEqual(source.cache);
          for (const [k, obj] of source.cache) expect(view.get(k)).toBe(obj);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('delivers every notification in order while the buffer has room', async () => {
    const source = new Source();
    const seen: string[] = [];
    const listener = new ProcessorListener(
      {
        onAdd: (o) => void seen.push(`add ${o.metadata.name}@${o.metadata.resourceVersion}`),
        onUpdate: (_o, n) =>
          void seen.push(`update ${n.metadata.name}@${n.metadata.resourceVersion}`),
        onDelete: (o) => void seen.push(`delete ${(o as KubeObject).metadata.name}`),
      },
      { name: 'h', bufferSize: 100, cache: source.store, upstreamSynced: () => true },
    );
    void listener.run();
    listener.add(source.put('a', false));
    listener.add(source.put('a', false));
    listener.add(source.delete('a')!);
    await drain(listener);
    expect(seen).toEqual(['add a@1', 'update a@2', 'delete a']);
    expect(listener.metrics()).toMatchObject({
      overflows: 0,
      coalesced: 0,
      delivered: 3,
      lagging: false,
    });
    await listener.stop();
  });

  it('reports lag, then catches up from the cache with only the latest state of each key', async () => {
    const source = new Source();
    const seen: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const listener = new ProcessorListener(
      {
        onAdd: async (o) => {
          seen.push(`add ${o.metadata.name}@${o.metadata.resourceVersion}`);
          await gate;
        },
        onUpdate: (o, n) =>
          void seen.push(
            `update ${n.metadata.name}@${o.metadata.resourceVersion}->${n.metadata.resourceVersion}`,
          ),
      },
      { name: 'slow', bufferSize: 2, cache: source.store, upstreamSynced: () => true },
    );
    void listener.run();
    listener.add(source.put('a', false)); // a@1: being handled, stuck on the gate
    await new Promise((resolve) => setImmediate(resolve));
    for (let i = 0; i < 10; i++) listener.add(source.put('b', false)); // b@2..b@11
    expect(listener.metrics()).toMatchObject({ lagging: true, overflows: 1 });
    release();
    await drain(listener);
    expect(seen).toEqual(['add a@1', 'add b@11']);
    expect(listener.metrics()).toMatchObject({ lagging: false, pendingKeys: 0 });
    await listener.stop();
  });

  it('turns a recreated object (new uid) into a delete and an add when catching up', async () => {
    const source = new Source();
    const seen: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const listener = new ProcessorListener(
      {
        onAdd: async (o) => {
          seen.push(`add ${o.metadata.uid}`);
          await gate;
        },
        onDelete: (o) =>
          void seen.push(
            `delete ${o instanceof DeletedFinalStateUnknown ? `tombstone ${o.obj?.metadata.uid}` : o.metadata.uid}`,
          ),
      },
      { name: 'slow', bufferSize: 1, cache: source.store, upstreamSynced: () => true },
    );
    void listener.run();
    listener.add(source.put('a', false));
    await new Promise((resolve) => setImmediate(resolve));
    listener.add(source.delete('a')!);
    listener.add(source.put('a', false));
    listener.add(source.put('a', false));
    release();
    await drain(listener);
    expect(seen).toEqual(['add uid-1', 'delete tombstone uid-1', 'add uid-2']);
    await listener.stop();
  });

  it('keeps going after the handler throws, counting the failures', async () => {
    const source = new Source();
    let calls = 0;
    const listener = new ProcessorListener(
      {
        onAdd: () => {
          calls++;
          throw new Error('handler bug');
        },
      },
      { name: 'bad', cache: source.store, upstreamSynced: () => true },
    );
    void listener.run();
    listener.add(source.put('a', false));
    listener.add(source.put('b', false));
    await eventually(() => expect(calls).toBe(2));
    expect(listener.metrics().handlerErrors).toBe(2);
    await listener.stop();
  });

  it('is synced only after the informer is and every initial-list notification was handled', async () => {
    const source = new Source();
    let upstream = false;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const listener = new ProcessorListener(
      { onAdd: () => gate },
      { name: 'h', cache: source.store, upstreamSynced: () => upstream },
    );
    void listener.run();
    const n = source.put('a', false);
    listener.add({ ...(n as Extract<Notification, { type: 'add' }>), isInInitialList: true });
    upstream = true;
    await new Promise((resolve) => setImmediate(resolve));
    expect(listener.hasSynced()).toBe(false);
    release();
    await eventually(() => expect(listener.hasSynced()).toBe(true));
    await listener.stop();
  });
});
