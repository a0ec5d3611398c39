import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../util/fake-clock.js';
import { settle } from '../testing/fixtures.js';
import { DelayingQueue } from './delaying-queue.js';

type Op =
  | { op: 'add'; item: string }
  | { op: 'get' }
  | { op: 'done'; pick: number }
  | { op: 'addAfter'; item: string; ms: number }
  | { op: 'step'; ms: number };

const item = fc.constantFrom('a', 'b', 'c', 'd', 'e');
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ op: fc.constant('add' as const), item }),
  fc.record({ op: fc.constant('get' as const) }),
  fc.record({ op: fc.constant('done' as const), pick: fc.nat() }),
  fc.record({ op: fc.constant('addAfter' as const), item, ms: fc.integer({ min: 0, max: 50 }) }),
  fc.record({ op: fc.constant('step' as const), ms: fc.integer({ min: 1, max: 60 }) }),
);

/** A straightforward model of client-go's queue semantics to compare the queue against. */
class Model {
  readonly queue: string[] = [];
  readonly dirty = new Set<string>();
  readonly processing = new Set<string>();
  readonly waiting = new Map<string, { at: number; seq: number }>();
  /** Times each item became dirty, i.e. periods that owe one processing. */
  readonly periods = new Map<string, number>();
  now = 0;
  private seq = 0;

  add(x: string): void {
    if (this.dirty.has(x)) return;
    this.dirty.add(x);
    this.periods.set(x, (this.periods.get(x) ?? 0) + 1);
    if (!this.processing.has(x)) this.queue.push(x);
  }
  get(): string {
    const x = this.queue.shift()!;
    this.processing.add(x);
    this.dirty.delete(x);
    return x;
  }
  done(x: string): void {
    this.processing.delete(x);
    if (this.dirty.has(x)) this.queue.push(x);
  }
  addAfter(x: string, ms: number): void {
    if (ms <= 0) return this.add(x);
    const at = this.now + ms;
    const w = this.waiting.get(x);
    if (!w) this.waiting.set(x, { at, seq: this.seq++ });
    else if (at < w.at) w.at = at;
  }
  step(ms: number): void {
    this.now += ms;
    const due = [...this.waiting].filter(([, w]) => w.at <= this.now);
    due.sort(([, a], [, b]) => a.at - b.at || a.seq - b.seq);
    for (const [x] of due) {
      this.waiting.delete(x);
      this.add(x);
    }
  }
}

// client-go util/workqueue/queue.go invariants, checked against a model.
describe('WorkQueue properties', () => {
  it('hands items out in model order, never while processing, once per dirty period', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 60 }), async (ops) => {
        const clock = new FakeClock();
        const q = new DelayingQueue<string>({ clock });
        const m = new Model();
        const handed = new Map<string, number>();
        const processing = new Set<string>();
        const get = async () => {
          const { item: got, shutdown } = await q.get();
          expect(shutdown).toBe(false);
          const want = m.get();
          expect(got).toBe(want);
          expect(processing.has(want)).toBe(false);
          processing.add(want);
          handed.set(want, (handed.get(want) ?? 0) + 1);
        };
        const done = (x: string) => {
          processing.delete(x);
          q.done(x);
          m.done(x);
        };
        for (const o of ops) {
          if (o.op === 'add') {
            q.add(o.item);
            m.add(o.item);
          } else if (o.op === 'get') {
            if (q.len() > 0) await get();
          } else if (o.op === 'done') {
            const busy = [...processing];
            if (busy.length > 0) done(busy[o.pick % busy.length]!);
          } else if (o.op === 'addAfter') {
            q.addAfter(o.item, o.ms);
            m.addAfter(o.item, o.ms);
          } else {
            clock.step(o.ms);
            m.step(o.ms);
          }
          expect(q.len()).toBe(m.queue.length);
          expect(q.waitingLen()).toBe(m.waiting.size);
        }
        // Finish everything: every dirty period must be processed exactly once.
        for (;;) {
          for (const x of [...processing]) done(x);
          if (q.len() > 0) {
            await get();
            continue;
          }
          if (m.waiting.size === 0) break;
          clock.step(100);
          m.step(100);
        }
        expect(handed).toEqual(m.periods);
      }),
    );
  });

  it('shutDownWithDrain resolves exactly when the last item being processed is done', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(item, { minLength: 1 }),
        fc.boolean(),
        async (items, readd) => {
          const q = new DelayingQueue<string>({ clock: new FakeClock() });
          for (const x of items) q.add(x);
          for (const _ of items) await q.get();
          // Adds during the drain are ignored: the drain must not wait for them.
          let drained = false;
          const draining = q.shutDownWithDrain().then(() => (drained = true));
          for (const x of items) {
            await settle();
            expect(drained).toBe(false);
            if (readd) q.add(x);
            q.done(x);
          }
          await draining;
          expect(drained).toBe(true);
          expect(q.len()).toBe(0);
        },
      ),
    );
  });
});
