import type { KubeObject } from './object-meta.js';
import type { Status } from './status.js';

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

export const WATCH_EVENT_TYPES: readonly WatchEventType[] = [
  'ADDED',
  'MODIFIED',
  'DELETED',
  'BOOKMARK',
  'ERROR',
];

/** The annotation on the BOOKMARK that ends a watch-list's initial events (KEP-3157). */
export const INITIAL_EVENTS_END_ANNOTATION = 'k8s.io/initial-events-end';

/** metav1.WatchEvent as it travels: ERROR events carry a Status instead of an object. */
export type WatchEvent<T extends object = KubeObject> =
  | { type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK'; object: T }
  | { type: 'ERROR'; object: Status };

export function isWatchEventType(value: unknown): value is WatchEventType {
  return typeof value === 'string' && (WATCH_EVENT_TYPES as readonly string[]).includes(value);
}
