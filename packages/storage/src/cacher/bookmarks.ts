import {
  apiVersionOf,
  INITIAL_EVENTS_END_ANNOTATION,
  type KubeObject,
  type ResourceDefinition,
  type WatchEvent,
} from '@listwatch/api';
import { listResourceVersion } from '../api-object-versioner.js';

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
