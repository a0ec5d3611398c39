import { isApiError, objectKey, type KubeObject } from '@listwatch/api';
import type { Controller } from '@listwatch/client';
import {
  deletedObject,
  enqueueKeys,
  splitMetaNamespaceKey,
  type DeletedFinalStateUnknown,
  type RestClient,
} from '@listwatch/client';
import {
  cachedResource,
  recordEvent,
  workQueueController,
  type CachedResource,
  type ControllerOptions,
} from '../controller-options.js';
import {
  cachedObject,
  controllerOf,
  newControllerRef,
  resolveControllerRef,
  resources,
  type Deployment,
} from '../objects.js';

// kubernetes/sample-controller (controller.go): a Foo (samplecontroller.k8s.io/v1alpha1) owns a
// Deployment named by spec.deploymentName with spec.replicas nginx pods; the controller creates
// it, keeps its replicas, refuses a Deployment of that name it does not own, and reports the
// Deployment's availableReplicas in the Foo's status. Written with informers and a work queue
// over a resource reference, no generated client (the CRD is installed by ensureFooCrd).

export const FOO_GROUP = 'samplecontroller.k8s.io';
export const FOO_VERSION = 'v1alpha1';
export const FOO_API_VERSION = `${FOO_GROUP}/${FOO_VERSION}`;

/** The Foo resource as a client reaches it. */
export const foos = {
  group: FOO_GROUP,
  version: FOO_VERSION,
  plural: 'foos',
  namespaced: true,
  kind: 'Foo',
} as const;

export interface Foo extends KubeObject {
  spec?: { deploymentName?: string; replicas?: number };
  status?: { availableReplicas?: number };
}

/**
 * sample-controller's artifacts/examples/crd-status-subresource.yaml, with the CEL rule
 * (`self.replicas <= 10`) beside the schema's maximum, and a printer column per field.
 */
export const FOO_CRD: KubeObject = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: {
    name: `foos.${FOO_GROUP}`,
    annotations: {
      'api-approved.kubernetes.io':
        "unapproved, experimental-only; please get an approval from Kubernetes API reviewers if you're trying to develop a CRD in the *.k8s.io or *.kubernetes.io groups",
    },
  },
  spec: {
    group: FOO_GROUP,
    scope: 'Namespaced',
    names: { kind: 'Foo', listKind: 'FooList', plural: 'foos', singular: 'foo' },
    versions: [
      {
        name: FOO_VERSION,
        served: true,
        storage: true,
        subresources: { status: {} },
        additionalPrinterColumns: [
          { name: 'Deployment', type: 'string', jsonPath: '.spec.deploymentName' },
          { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' },
          { name: 'Available', type: 'integer', jsonPath: '.status.availableReplicas' },
          { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
        ],
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                properties: {
                  deploymentName: { type: 'string' },
                  replicas: { type: 'integer', minimum: 1, maximum: 10 },
                },
                'x-kubernetes-validations': [
                  {
                    rule: '!has(self.replicas) || self.replicas <= 10',
                    message: 'replicas must be at most 10',
                  },
                ],
              },
              status: {
                type: 'object',
                properties: { availableReplicas: { type: 'integer' } },
              },
            },
          },
        },
      },
    ],
  },
};

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

/** Creates the Foo CRD unless it exists, and waits (up to `timeoutMs`) until it is Established. */
export async function ensureFooCrd(client: RestClient, timeoutMs = 10_000): Promise<void> {
  try {
    await client.request({ method: 'POST', path: CRDS, body: FOO_CRD });
  } catch (err) {
    if (!isApiError(err) || err.code !== 409) throw err;
  }
  const until = Date.now() + timeoutMs;
  for (;;) {
    const crd = await client.request<KubeObject>({
      method: 'GET',
      path: `${CRDS}/${FOO_CRD.metadata.name ?? ''}`,
    });
    const conditions = (crd['status'] as { conditions?: { type: string; status: string }[] })
      ?.conditions;
    if (conditions?.some((c) => c.type === 'Established' && c.status === 'True')) return;
    if (Date.now() > until) return; // the controller's informer keeps trying
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** sample-controller's newDeployment: `spec.replicas` nginx pods labelled for this Foo. */
export function newDeployment(foo: Foo): Deployment {
  const labels = { app: 'nginx', controller: foo.metadata.name ?? '' };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: foo.spec?.deploymentName ?? '',
      namespace: foo.metadata.namespace ?? '',
      ownerReferences: [newControllerRef(foo, FOO_API_VERSION, 'Foo')],
    },
    spec: {
      ...(foo.spec?.replicas !== undefined ? { replicas: foo.spec.replicas } : {}),
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: { containers: [{ name: 'nginx', image: 'nginx:latest' }] },
      },
    },
  };
}

/** sample-controller's MessageResourceExists. */
export function resourceExistsMessage(name: string): string {
  return `Resource "${name}" already exists and is not managed by Foo`;
}

export class FooController {
  readonly controller: Controller<string>;
  private readonly foos: CachedResource<Foo>;
  private readonly deployments: CachedResource<Deployment>;
  private readonly options: ControllerOptions;

  constructor(options: ControllerOptions) {
    this.options = options;
    this.foos = cachedResource<Foo>(options, foos);
    this.deployments = cachedResource<Deployment>(options, resources.deployments);
    const enqueue = { add: (key: string) => this.controller.enqueue(key) };
    const fooRegistration = this.foos.informer.addEventHandler(enqueueKeys(enqueue));
    // handleObject: a Deployment owned by a Foo brings its Foo back to the queue.
    const deploymentRegistration = this.deployments.informer.addEventHandler({
      onAdd: (d) => this.handleObject(d),
      onUpdate: (oldD, newD) => {
        if (oldD.metadata.resourceVersion !== newD.metadata.resourceVersion)
          this.handleObject(newD);
      },
      onDelete: (obj: Deployment | DeletedFinalStateUnknown<Deployment>) => {
        const d = deletedObject(obj);
        if (d) this.handleObject(d);
      },
    });
    this.controller = workQueueController(options, 'foo', (key) => this.syncHandler(key), [
      fooRegistration,
      deploymentRegistration,
    ]);
  }

  run(signal: AbortSignal): Promise<void> {
    return this.controller.run(signal);
  }

  private handleObject(d: Deployment): void {
    const ref = controllerOf(d);
    if (ref?.apiVersion !== FOO_API_VERSION) return;
    const foo = resolveControllerRef(this.foos.lister, 'Foo', d.metadata.namespace ?? '', ref);
    if (foo) this.controller.enqueue(objectKey(foo.metadata));
  }

  /** controller.go syncHandler. */
  private async syncHandler(key: string): Promise<void> {
    const { namespace, name } = splitMetaNamespaceKey(key);
    const foo = cachedObject(this.foos.lister, namespace, name);
    if (!foo) return; // gone: its Deployment is the GC's
    const deploymentName = foo.spec?.deploymentName ?? '';
    if (!deploymentName) return; // "deployment name must be specified": nothing to retry
    let deployment =
      cachedObject(this.deployments.lister, namespace, deploymentName) ??
      (await this.deployments.client.namespace(namespace).create(newDeployment(foo)));
    const owner = controllerOf(deployment);
    if (owner?.uid !== foo.metadata.uid) {
      const message = resourceExistsMessage(deploymentName);
      recordEvent(this.options.recorder, foos, foo, 'Warning', 'ErrResourceExists', message);
      throw new Error(message);
    }
    const want = foo.spec?.replicas;
    if (want !== undefined && want !== (deployment.spec?.replicas ?? 1)) {
      deployment = await this.deployments.client.namespace(namespace).update({
        ...newDeployment(foo),
        metadata: {
          ...deployment.metadata,
          ownerReferences: newDeployment(foo).metadata.ownerReferences!,
        },
      });
    }
    await this.updateFooStatus(foo, deployment);
    recordEvent(this.options.recorder, foos, foo, 'Normal', 'Synced', 'Foo synced successfully');
  }

  /**
   * controller.go updateFooStatus: the Deployment's availableReplicas, by server-side apply of
   * the status subresource as `sample-controller` (the uid guards against a recreated Foo).
   */
  private async updateFooStatus(foo: Foo, deployment: Deployment): Promise<void> {
    const available = deployment.status?.availableReplicas ?? 0;
    if (foo.status?.availableReplicas === available) return;
    await this.foos.client.namespace(foo.metadata.namespace ?? '').applyStatus(
      {
        apiVersion: FOO_API_VERSION,
        kind: 'Foo',
        metadata: { name: foo.metadata.name ?? '', uid: foo.metadata.uid ?? '' },
        status: { availableReplicas: available },
      },
      { fieldManager: 'sample-controller', force: true },
    );
  }
}
