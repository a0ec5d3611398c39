import { ApiError, type KubeList, type KubeObject } from '@listwatch/api';
import type { ListerWatcher } from '../cache/lister-watcher.js';
import { ConnectionError } from '../rest/errors.js';
import type { ListParams } from '../rest/list-params.js';
import type { WatchStream, WatchStreamEvent } from '../rest/watch-stream.js';

/** One call the lister-watcher saw, and how it ended. */
interface Call {
  verb: 'list' | 'watch';
  params: ListParams;
  outcome: string;
}

/**
 * Network and server faults in front of a real ListerWatcher: refused connections, scripted
 * error responses, watches that break mid-stream or end at once. Everything else goes through.
 */
export class FaultyListerWatcher<T extends KubeObject = KubeObject> implements ListerWatcher<T> {
  /** New requests fail with "connection refused" while set. */
  refuse = false;
  /** The next list() calls fail with these, in order; an undefined lets its call through. */
  readonly listErrors: (ApiError | undefined)[] = [];
  /** The next watch() calls fail with these, in order. */
  readonly watchErrors: ApiError[] = [];
  /** Watch-list requests (sendInitialEvents) fail with this, like a server without the feature. */
  rejectWatchList: ApiError | undefined;
  /** Watches end as soon as they open, without an event. */
  endWatchesAtOnce = false;
  readonly calls: Call[] = [];
  private readonly open = new Set<{ break(): void }>();

  constructor(private readonly inner: ListerWatcher<T>) {}

  async list(params: ListParams, signal?: AbortSignal): Promise<KubeList<T>> {
    const call = { verb: 'list' as const, params, outcome: 'ok' };
    this.calls.push(call);
    if (this.refuse) {
      call.outcome = 'refused';
      throw new ConnectionError('ECONNREFUSED', 'list: connection refused');
    }
    const scripted = this.listErrors.shift();
    if (scripted) {
      call.outcome = String(scripted.code);
      throw scripted;
    }
    try {
      return await this.inner.list(params, signal);
    } catch (err) {
      call.outcome = `error ${(err as ApiError).code}`;
      throw err;
    }
  }

  async watch(params: ListParams, signal?: AbortSignal): Promise<WatchStream<T>> {
    const call = { verb: 'watch' as const, params, outcome: 'ok' };
    this.calls.push(call);
    if (this.refuse) {
      call.outcome = 'refused';
      throw new ConnectionError('ECONNREFUSED', 'watch: connection refused');
    }
    if (this.rejectWatchList && params.sendInitialEvents) {
      call.outcome = String(this.rejectWatchList.code);
      throw this.rejectWatchList;
    }
    const scripted = this.watchErrors.shift();
    if (scripted) {
      call.outcome = String(scripted.code);
      throw scripted;
    }
    let inner: WatchStream<T>;
    try {
      inner = await this.inner.watch(params, signal);
    } catch (err) {
      call.outcome = `error ${(err as ApiError).code}`;
      throw err;
    }
    if (this.endWatchesAtOnce) {
      inner.close();
      return { close: () => {}, [Symbol.asyncIterator]: async function* () {} };
    }
    let broken = false;
    const handle = {
      break: () => {
        broken = true;
        inner.close();
      },
    };
    this.open.add(handle);
    const open = this.open;
    return {
      close: () => {
        open.delete(handle);
        inner.close();
      },
      async *[Symbol.asyncIterator](): AsyncGenerator<WatchStreamEvent<T>> {
        try {
          for await (const event of inner) {
            if (broken) break;
            yield event;
          }
          if (broken) throw new ConnectionError('ECONNRESET', 'watch: connection reset by peer');
        } finally {
          open.delete(handle);
        }
      },
    };
  }

  /** Cuts every open watch and fails the re-watch with a 500: the reflector lists again. */
  forceRelist(): void {
    this.watchErrors.push(ApiError.internalError(new Error('force a relist')));
    this.breakWatches();
  }

  /** The list calls so far. */
  get lists(): Call[] {
    return this.calls.filter((c) => c.verb === 'list');
  }

  /** Cuts every open watch as a dropped connection would. */
  breakWatches(): void {
    for (const handle of [...this.open]) handle.break();
  }

  get watchesOpen(): number {
    return this.open.size;
  }
}
