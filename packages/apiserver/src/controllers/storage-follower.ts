import type { KubeObject, Logger } from '@listwatch/api';
import type { Storage, StorageEventType, StorageWatch } from '@listwatch/storage';

/** What a follower hands on: whole lists, then changes. */
export interface FollowerHandlers {
  /** Every object under the prefix, from the first list and from every relist. */
  listed(objects: KubeObject[]): void | Promise<void>;
  /** One change after the list it follows. */
  changed(type: StorageEventType, object: KubeObject): void | Promise<void>;
}

const RETRY_MS = 1000;

/**
 * Follows one storage prefix as a reflector does (list, then watch from the list's revision; when
 * the watch ends — compaction, a lost backend — list again after a pause), for the apiserver's
 * own consumers of its objects: the RBAC authorizer's policy and the serviceaccounts controller.
 */
export class StorageFollower {
  private watch: StorageWatch | undefined;
  private stopped = false;

  constructor(
    private readonly storage: Storage,
    private readonly prefix: string,
    private readonly handlers: FollowerHandlers,
    private readonly logger: Logger,
    private readonly name: string,
  ) {}

  /** Resolves once the first list is handled; a failure there is the caller's. */
  async start(): Promise<void> {
    const revision = await this.list();
    this.follow(revision);
  }

  stop(): void {
    this.stopped = true;
    this.watch?.close();
  }

  /** Pages read at the first page's revision: one consistent snapshot to watch from. */
  private async list(): Promise<number> {
    const objects: KubeObject[] = [];
    let revision = 0;
    for (let from: string | undefined; ;) {
      const page = await this.storage.list(this.prefix, {
        limit: 500,
        ...(from !== undefined ? { continueFrom: from, revision } : {}),
      });
      revision = page.revision;
      objects.push(...page.items);
      if (!page.more) break;
      from = `${page.keys[page.keys.length - 1]}\0`;
    }
    await this.handlers.listed(objects);
    return revision;
  }

  private follow(revision: number): void {
    if (this.stopped) return;
    const watch = this.storage.watch(this.prefix, { fromRevision: revision });
    this.watch = watch;
    void (async () => {
      try {
        for await (const event of watch) {
          if (event.type === 'PROGRESS') continue;
          await Promise.resolve(this.handlers.changed(event.type, event.object)).catch(
            (err: unknown) =>
              this.logger.warn(`${this.name}: handling a change failed`, { error: String(err) }),
          );
        }
      } catch (err) {
        this.logger.warn(`${this.name}: watch ended; relisting`, { error: String(err) });
      }
      while (!this.stopped) {
        await new Promise((resolve) => setTimeout(resolve, RETRY_MS).unref());
        if (this.stopped) return;
        try {
          this.follow(await this.list());
          return;
        } catch (err) {
          this.logger.warn(`${this.name}: relist failed`, { error: String(err) });
        }
      }
    })();
  }
}
