import { parseListOptions, type KubeObject, type ResourceDefinition } from '@listwatch/api';
import { loopbackContext, type LoopbackParts } from '../registry/rest/loopback-context.js';
import type { Lister, RequestContext, Watcher, WatchInterface } from '../registry/rest/rest.js';

/** A change a reflector hands on. */
export type ChangeType = 'ADDED' | 'MODIFIED' | 'DELETED';

/** What a reflector hands on: whole lists, then changes. */
export interface ReflectorHandlers {
  /**
   * Every object of the resource, from the first list and from every relist. The objects are the
   * watch cache's: read them, never change them.
   */
  listed(objects: KubeObject[]): void | Promise<void>;
  /** One change after the list it follows. */
  changed(type: ChangeType, object: KubeObject): void | Promise<void>;
}

/** What a reflector reads: a resource's Store, as its Lister and Watcher. */
export interface ListerWatcher extends Lister, Watcher {
  readonly definition: Pick<ResourceDefinition, 'group' | 'plural'>;
}

/** The pause before a relist after a failure (client-go's backoff starts near a second). */
const RETRY_MS = 1000;
/** A watch ends after 5 to 10 minutes and is opened again where it ended (minWatchTimeout). */
const MIN_WATCH_TIMEOUT_MS = 5 * 60_000;
/** A watch that ends sooner than this having brought nothing is a failure (a very short watch). */
const SHORT_WATCH_MS = 1000;
const PAGE_SIZE = '500';

/**
 * client-go's Reflector (tools/cache/reflector.go) over a resource's Store, as the loopback
 * client: list (paged, consistent), then watch from the list's resourceVersion with bookmarks;
 * a watch that times out is opened again where it ended, one that fails (410 Gone, the cache
 * re-initializing) is followed by a relist after a pause. Reads are the Store's, so they are
 * served by the watch cache, as kube's informers are. For the apiserver's own consumers of its
 * objects: the RBAC authorizer's policy, the serviceaccounts controller, the CRD and APIService
 * controllers.
 */
export class Reflector {
  private watch: WatchInterface | undefined;
  private stopped = false;

  constructor(
    private readonly store: ListerWatcher,
    private readonly loopback: LoopbackParts,
    private readonly handlers: ReflectorHandlers,
    private readonly name: string,
  ) {}

  /** Resolves once the first list is handled; a failure there is the caller's. */
  async start(): Promise<void> {
    this.run(await this.list());
  }

  stop(): void {
    this.stopped = true;
    this.watch?.end('closed');
  }

  private context(verb: 'list' | 'watch'): RequestContext {
    const { group, plural } = this.store.definition;
    return loopbackContext(this.loopback, { verb, apiGroup: group, resource: plural });
  }

  /** Every page of a consistent list (client-go's pager); the resourceVersion to watch from. */
  private async list(): Promise<string> {
    const objects: KubeObject[] = [];
    let resourceVersion = '';
    for (let token: string | undefined; ;) {
      const query = new URLSearchParams({ limit: PAGE_SIZE });
      if (token !== undefined) query.set('continue', token);
      const page = await this.store.list(this.context('list'), parseListOptions(query));
      objects.push(...page.items);
      if (token === undefined) resourceVersion = page.resourceVersion;
      if (!page.continue) break;
      token = page.continue;
    }
    await this.handlers.listed(objects);
    return resourceVersion;
  }

  /** Watches from `resourceVersion` until stopped; relists when a watch fails. */
  private run(resourceVersion: string): void {
    if (this.stopped) return;
    void (async () => {
      let from = resourceVersion;
      for (;;) {
        const ended = await this.watchFrom(from).catch((err: unknown) => ({
          failure: String(err),
          from,
        }));
        if (this.stopped) return;
        from = ended.from;
        if (ended.failure === undefined) continue;
        this.loopback.logger.warn(`${this.name}: watch ended; relisting`, {
          error: ended.failure,
        });
        break;
      }
      while (!this.stopped) {
        await new Promise((resolve) => setTimeout(resolve, RETRY_MS).unref());
        if (this.stopped) return;
        try {
          this.run(await this.list());
          return;
        } catch (err) {
          this.loopback.logger.warn(`${this.name}: relist failed`, { error: String(err) });
        }
      }
    })();
  }

  /** One watch: where the next one starts, and why it failed if it did. */
  private async watchFrom(resourceVersion: string): Promise<{ from: string; failure?: string }> {
    const query = new URLSearchParams({
      watch: 'true',
      resourceVersion,
      allowWatchBookmarks: 'true',
    });
    const timeoutMs = MIN_WATCH_TIMEOUT_MS * (1 + Math.random());
    const opened = Date.now();
    const watch = await this.store.watch(this.context('watch'), {
      options: parseListOptions(query),
      timeoutMs,
    });
    if (this.stopped) {
      watch.end('closed');
      return { from: resourceVersion };
    }
    this.watch = watch;
    let from = resourceVersion;
    let received = false;
    for await (const { encoded, revision } of watch) {
      const { event } = encoded;
      if (event.type === 'ERROR') return { from, failure: event.object.message ?? 'watch error' };
      received = true;
      from = String(revision);
      if (event.type === 'BOOKMARK') continue;
      await Promise.resolve(this.handlers.changed(event.type, event.object)).catch((err: unknown) =>
        this.loopback.logger.warn(`${this.name}: handling a change failed`, {
          error: String(err),
        }),
      );
    }
    if (!received && Date.now() - opened < SHORT_WATCH_MS && !this.stopped)
      return { from, failure: 'very short watch: ended at once with no events' };
    return { from };
  }
}
