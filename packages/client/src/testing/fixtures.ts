import type { KubeObject } from '@listwatch/api';

/** A minimal namespaced object (a ConfigMap) for cache tests. */
export function configMap(
  namespace: string,
  name: string,
  resourceVersion = '1',
  labels?: Record<string, string>,
): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { namespace, name, resourceVersion, ...(labels ? { labels } : {}) },
  };
}

/** A minimal cluster-scoped object (a Namespace). */
export function namespaceObject(name: string, resourceVersion = '1'): KubeObject {
  return { apiVersion: 'v1', kind: 'Namespace', metadata: { name, resourceVersion } };
}

/** A selector matching labels equal to every given pair, standing in for parsed selectors. */
export function equalitySelector(want: Record<string, string>): {
  matches(labels: Record<string, string>): boolean;
} {
  return { matches: (labels) => Object.entries(want).every(([k, v]) => labels[k] === v) };
}

/** Lets queued promise continuations run (a pop or get waiting on a condition). */
export async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await Promise.resolve();
}
