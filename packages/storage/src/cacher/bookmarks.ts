import {
  apiVersionOf,
  INITIAL_EVENTS_END_ANNOTATION,
  type KubeObject,
  type ResourceDefinition,
  type WatchEvent,
} from '@listwatch/api';
import { listResourceVersion } from '../api-object-versioner.js';
import type { CacheWatcher } from './cache-watcher.js';

/**
 * A BOOKMARK: an empty object of the watched kind carrying only the resourceVersion (and, at the
 * end of a watch-list's initial events, the `k8s.io/initial-events-end` annotation).
 */
export function bookmarkEvent(
  definition: Pick<ResourceDefinition, 'group' | 'version' | 'kind'>,
  revision: number,
  initialEventsEnd = false,
): WatchEvent {
  const object: KubeObject = {
    kind: definition.kind,
    apiVersion: apiVersionOf(definition),
    metadata: {
      resourceVersion: listResourceVersion(revision),
      ...(initialEventsEnd ? { annotations: { [INITIAL_EVENTS_END_ANNOTATION]: 'true' } } : {}),
    },
  };
  return { type: 'BOOKMARK', object };
}

/**
 * When each watcher that asked for bookmarks gets its next one (cacher.go
 * watcherBookmarkTimeBuckets): every interval, and once just before the watch's deadline so the
 * client resumes from a fresh revision.
 */
export class BookmarkSchedule {
  private readonly next = new Map<CacheWatcher, number>();

  constructor(private readonly intervalMs: number) {}

  schedule(watcher: CacheWatcher, now: number): void {
    if (!watcher.options.allowBookmarks) return;
    let next = now + this.intervalMs;
    const deadline = watcher.options.deadline;
    if (deadline !== undefined && deadline - 2000 < next) next = Math.max(now, deadline - 2000);
    this.next.set(watcher, next);
  }

  isDue(watcher: CacheWatcher, now: number): boolean {
    const due = this.next.get(watcher);
    return due !== undefined && now >= due;
  }

  delete(watcher: CacheWatcher): void {
    this.next.delete(watcher);
  }
}
