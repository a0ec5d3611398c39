import { FOO_API_VERSION, foos, type Foo } from './controllers/samplecontroller/foo-controller.js';
import { isApiError } from '@listwatch/api';
import type { RestClient } from '@listwatch/client';
import { resources, type Deployment, type ReplicaSet } from './controllers/objects.js';

function webSpec(name: string, replicas: number) {
  const labels = { app: name };
  return {
    replicas,
    selector: { matchLabels: labels },
    template: {
      metadata: { labels },
      spec: {
        containers: [{ name: 'nginx', image: 'nginx:1.27', ports: [{ containerPort: 80 }] }],
      },
    },
  };
}

/** A bare ReplicaSet of `replicas` nginx pods labelled app=<name> (controller tests). */
export function webReplicaSet(namespace: string, name = 'web', replicas = 3): ReplicaSet {
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: { name, namespace, labels: { app: name } },
    spec: webSpec(name, replicas),
  };
}

/** The demo's Deployment: `replicas` nginx pods labelled app=<name>, rolled out by its controller. */
export function webDeployment(namespace: string, name = 'web', replicas = 3): Deployment {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace, labels: { app: name } },
    spec: webSpec(name, replicas),
  };
}

/** Creates the Deployment unless an earlier run did (then it is left as it is). */
export async function ensureDeployment(client: RestClient, d: Deployment): Promise<void> {
  try {
    await client
      .resource<Deployment>(resources.deployments)
      .namespace(d.metadata.namespace ?? '')
      .create(d);
  } catch (err) {
    if (!isApiError(err) || err.code !== 409) throw err;
  }
}

/** sample-controller's artifacts/examples/example-foo.yaml: a Foo owning Deployment `name`. */
export function exampleFoo(namespace: string, name = 'example-foo', replicas = 1): Foo {
  return {
    apiVersion: FOO_API_VERSION,
    kind: 'Foo',
    metadata: { name, namespace },
    spec: { deploymentName: name, replicas },
  };
}

/**
 * Creates the Foo unless an earlier run did. Behind a balancer (`--apiservers N`) the replica
 * asked may not serve the just-established CRD yet and answer 404 for a moment, as
 * kube-apiservers in HA do (apiextensions-apiserver delays Established by 5 s with more than one
 * master for that reason): 404s are retried for up to `timeoutMs`.
 */
export async function ensureFoo(client: RestClient, foo: Foo, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    try {
      await client
        .resource<Foo>(foos)
        .namespace(foo.metadata.namespace ?? '')
        .create(foo);
      return;
    } catch (err) {
      if (isApiError(err) && err.code === 409) return;
      if (!isApiError(err) || err.code !== 404 || Date.now() > until) throw err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}
