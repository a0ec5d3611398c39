import type { KubeObject } from '@listwatch/api';
import type { Storage } from '../storage.js';
import { type StorageError, isStorageError } from '../storage-error.js';

/** What the cache is (re)filled with: every object of the resource at one revision. */
export interface ListedState {
  items: { key: string; object: KubeObject }[];
  revision: number;
  /** Keys whose value does not decode: left out, each an error of its own. */
  corrupt: StorageError[];
}

/**
 * The cache's own LIST of storage (k8s.io/apiserver pkg/storage/cacher/lister_watcher.go): all
 * objects under `prefix` at `at` (0: the latest), page by page; undefined when storage no longer
 * has that revision.
 */
export async function listAll(
  storage: Storage,
  prefix: string,
  at: number,
): Promise<ListedState | undefined> {
  const items: { key: string; object: KubeObject }[] = [];
  const corrupt: StorageError[] = [];
  let revision = at;
  let continueFrom: string | undefined;
  for (;;) {
    let page;
    try {
      page = await storage.list(prefix, {
        limit: 10_000,
        skipCorrupt: true,
        ...(revision ? { revision } : {}),
        ...(continueFrom !== undefined ? { continueFrom } : {}),
      });
    } catch (err) {
      if (at > 0 && isStorageError(err, 'Expired')) return undefined;
      throw err;
    }
    revision = page.revision;
    page.items.forEach((object, i) => items.push({ key: page.keys[i]!, object }));
    corrupt.push(...(page.corrupt ?? []));
    if (!page.more) break;
    // After the last key read, kept or left out (a page may hold only corrupt ones).
    const lastKept = page.keys.at(-1);
    const lastCorrupt = page.corrupt?.at(-1)?.key;
    const last =
      lastKept === undefined || (lastCorrupt !== undefined && lastCorrupt > lastKept)
        ? lastCorrupt!
        : lastKept;
    continueFrom = `${last}\u0000`;
  }
  return { items, revision, corrupt };
}
