import { isApiError, type KubeObject } from '@listwatch/api';
import type { ListerWatcher } from '@listwatch/client';
import type { SeededRandom } from '@listwatch/testing';
import { sleep } from './chaos-config.js';
import type { Seen } from './validate-watch.js';

/** A watcher as a controller's reflector runs one: LIST, WATCH, resume on breaks, relist on 410. */
export class RawWatcher {
  /** Runs of events without a relist: each starts at a LIST's revision. */
  readonly segments: { start: number; events: Seen[] }[] = [];
  readonly violations: string[] = [];
  relists = -1;
  resumes = 0;
  delivered = 0;
  private last = 0;
  private bookmark = 0;
  private stopped = false;
  private current: { close(): void } | undefined;
  readonly done: Promise<void>;

  constructor(
    readonly id: string,
    private readonly lw: ListerWatcher<KubeObject>,
    private readonly rand: SeededRandom,
  ) {
    this.done = this.run();
  }

  get lastRevision(): number {
    return Math.max(this.last, this.bookmark);
  }

  private async relist(): Promise<void> {
    for (;;) {
      try {
        const list = await this.lw.list({});
        this.relists++;
        this.last = Number(list.metadata.resourceVersion);
        this.bookmark = 0;
        this.segments.push({ start: this.last, events: [] });
        return;
      } catch {
        if (this.stopped) return;
        await sleep(200);
      }
    }
  }

  private async run(): Promise<void> {
    await this.relist();
    while (!this.stopped) {
      try {
        const watch = await this.lw.watch({
          resourceVersion: String(this.lastRevision),
          allowWatchBookmarks: true,
          timeoutSeconds: 5 + this.rand.int(20),
        });
        this.current = watch;
        for await (const event of watch) {
          const rv = Number(event.object.metadata?.resourceVersion);
          if (event.type === 'BOOKMARK') {
            if (rv < this.lastRevision)
              this.violations.push(`${this.id}: BOOKMARK ${rv} after ${this.lastRevision}`);
            this.bookmark = Math.max(this.bookmark, rv);
            continue;
          }
          if (rv <= this.last)
            this.violations.push(`${this.id}: event ${rv} after ${this.last} (Ordered, Unique)`);
          if (rv <= this.bookmark)
            this.violations.push(
              `${this.id}: event ${rv} after BOOKMARK ${this.bookmark} (Bookmarkable)`,
            );
          this.last = rv;
          this.delivered++;
          this.segments.at(-1)!.events.push({
            type: event.type,
            name: event.object.metadata.name!,
            rv,
          });
        }
        // A clean end (timeoutSeconds, or a replica shutting down): resume where it stopped.
        this.resumes++;
      } catch (err) {
        if (this.stopped) break;
        if (isApiError(err) && err.code === 410) {
          await this.relist();
          continue;
        }
        this.resumes++;
        await sleep(100 + this.rand.int(400));
      }
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.current?.close();
    await this.done;
  }
}
