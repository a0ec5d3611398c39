import { isApiError } from '@listwatch/api';
import type { RestClient } from '@listwatch/client';
import { resources, type ReplicaSet } from './controllers/objects.js';

/** The demo's ReplicaSet: `replicas` nginx pods labelled app=<name>. */
export function webReplicaSet(namespace: string, name = 'web', replicas = 3): ReplicaSet {
  const labels = { app: name };
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: { name, namespace, labels },
    spec: {
      replicas,
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: {
          containers: [{ name: 'nginx', image: 'nginx:1.27', ports: [{ containerPort: 80 }] }],
        },
      },
    },
  };
}

/** Creates the ReplicaSet unless an earlier run did (then its replica count is left as it is). */
export async function ensureReplicaSet(client: RestClient, rs: ReplicaSet): Promise<void> {
  try {
    await client
      .resource<ReplicaSet>(resources.replicasets)
      .namespace(rs.metadata.namespace ?? '')
      .create(rs);
  } catch (err) {
    if (!isApiError(err) || err.code !== 409) throw err;
  }
}
