import type { ClockTimer } from '../util/clock.js';
import { WorkQueue, type WorkQueueOptions } from './queue.js';

interface Waiting<T> {
  item: T;
  readyAt: number;
  /** Tie-break so items due at the same time are added in the order they were scheduled. */
  seq: number;
  /** Position in the heap, kept for decrease-key. */
  index: number;
}

/**
 * A WorkQueue that can add an item later (client-go util/workqueue/delaying_queue.go): the
 * basis of retries with backoff. Waiting items sit in a min-heap by due time with one timer for
 * the earliest; an item scheduled twice keeps the earlier time.
 */
export class DelayingQueue<T> extends WorkQueue<T> {
  private readonly heap: Waiting<T>[] = [];
  private readonly waiting = new Map<T, Waiting<T>>();
  private seq = 0;
  private timer: ClockTimer | undefined;
  private timerAt = 0;

  constructor(options: WorkQueueOptions = {}) {
    super(options);
  }

  /**
   * Adds the item after `delayMs`; at once if the delay is not positive. On the real clock a
   * pending delay keeps the process alive until it fires or the queue shuts down.
   */
  addAfter(item: T, delayMs: number): void {
    if (this.shuttingDown()) return;
    this.metrics.retry();
    if (!(delayMs > 0)) {
      this.add(item);
      return;
    }
    const readyAt = this.clock.now() + delayMs;
    const entry = this.waiting.get(item);
    if (entry === undefined) {
      const added: Waiting<T> = { item, readyAt, seq: this.seq++, index: this.heap.length };
      this.heap.push(added);
      this.waiting.set(item, added);
      this.up(added.index);
    } else if (readyAt < entry.readyAt) {
      entry.readyAt = readyAt;
      this.up(entry.index);
    }
    this.arm();
  }

  /** Items waiting for their delay to pass; informational only. */
  waitingLen(): number {
    return this.heap.length;
  }

  protected override stop(): void {
    super.stop();
    this.timer?.cancel();
    this.timer = undefined;
    this.heap.length = 0;
    this.waiting.clear();
  }

  /** Keeps exactly one timer, due when the earliest waiting item is. */
  private arm(): void {
    const head = this.heap[0];
    if (head === undefined) {
      this.timer?.cancel();
      this.timer = undefined;
      return;
    }
    if (this.timer !== undefined && this.timerAt === head.readyAt) return;
    this.timer?.cancel();
    this.timerAt = head.readyAt;
    this.timer = this.clock.setTimer(() => {
      this.timer = undefined;
      this.fire();
    }, head.readyAt - this.clock.now());
  }

  private fire(): void {
    const now = this.clock.now();
    for (let head = this.heap[0]; head !== undefined && head.readyAt <= now; head = this.heap[0]) {
      this.removeHead();
      this.waiting.delete(head.item);
      this.add(head.item);
    }
    this.arm();
  }

  private less(a: Waiting<T>, b: Waiting<T>): boolean {
    return a.readyAt < b.readyAt || (a.readyAt === b.readyAt && a.seq < b.seq);
  }

  private swap(i: number, j: number): void {
    const a = this.heap[i] as Waiting<T>;
    const b = this.heap[j] as Waiting<T>;
    this.heap[i] = b;
    this.heap[j] = a;
    b.index = i;
    a.index = j;
  }

  private up(i: number): void {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.less(this.heap[i] as Waiting<T>, this.heap[parent] as Waiting<T>)) break;
      this.swap(i, parent);
      i = parent;
    }
  }

  private down(i: number): void {
    const n = this.heap.length;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let least = i;
      if (l < n && this.less(this.heap[l] as Waiting<T>, this.heap[least] as Waiting<T>)) least = l;
      if (r < n && this.less(this.heap[r] as Waiting<T>, this.heap[least] as Waiting<T>)) least = r;
      if (least === i) return;
      this.swap(i, least);
      i = least;
    }
  }

  private removeHead(): void {
    const last = this.heap.length - 1;
    this.swap(0, last);
    this.heap.pop();
    if (this.heap.length > 0) this.down(0);
  }
}
