import { isApiError, type KubeObject } from '@listwatch/api';
import {
  generationChangedPredicate,
  Manager,
  newControllerManagedBy,
  resourceVersionChangedPredicate,
  setControllerReference,
  setStatusCondition,
  type Condition,
  type ConditionInput,
  type Controller,
  type Lister,
  type Reconciler,
  type Request,
  type ResourceClient,
  type RestClient,
} from '@listwatch/client';
import { recordEvent, type ControllerOptions } from '../controller-options.js';
import { cachedObject, controllerOf, resources, type Deployment } from '../objects.js';

// kubernetes/sample-controller (controller.go): a Foo (samplecontroller.k8s.io/v1alpha1) owns a
// Deployment named by spec.deploymentName with spec.replicas nginx pods; the controller creates
// it, keeps its replicas, refuses a Deployment of that name it does not own, and reports the
// Deployment's availableReplicas in the Foo's status. Written as a controller-runtime
// reconciler on @listwatch/client's builder (for Foo, owns Deployment), no generated client
// (the CRD is installed by ensureFooCrd).

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
  status?: { availableReplicas?: number; conditions?: Condition[] };
}

/** The Foo's condition saying whether its Deployment is the one it asks for. */
export const FOO_READY = 'Ready';

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
                properties: {
                  availableReplicas: { type: 'integer' },
                  // metav1.Condition, merged by type under server-side apply.
                  conditions: {
                    type: 'array',
                    'x-kubernetes-list-type': 'map',
                    'x-kubernetes-list-map-keys': ['type'],
                    items: {
                      type: 'object',
                      required: ['type', 'status', 'lastTransitionTime', 'reason', 'message'],
                      properties: {
                        type: { type: 'string' },
                        status: { type: 'string', enum: ['True', 'False', 'Unknown'] },
                        observedGeneration: { type: 'integer' },
                        lastTransitionTime: { type: 'string', format: 'date-time' },
                        reason: { type: 'string' },
                        message: { type: 'string' },
                      },
                    },
                  },
                },
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

/**
 * sample-controller's newDeployment: `spec.replicas` nginx pods labelled for this Foo, controlled
 * by it (controllerutil.SetControllerReference: the builder's owns() maps it back, the garbage
 * collector deletes it with the Foo).
 */
export function newDeployment(foo: Foo): Deployment {
  const labels = { app: 'nginx', controller: foo.metadata.name ?? '' };
  const deployment: Deployment = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: foo.spec?.deploymentName ?? '', namespace: foo.metadata.namespace ?? '' },
    spec: {
      ...(foo.spec?.replicas !== undefined ? { replicas: foo.spec.replicas } : {}),
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: { containers: [{ name: 'nginx', image: 'nginx:latest' }] },
      },
    },
  };
  setControllerReference(foo, deployment, foos);
  return deployment;
}

/** sample-controller's MessageResourceExists. */
export function resourceExistsMessage(name: string): string {
  return `Resource "${name}" already exists and is not managed by Foo`;
}

/**
 * The sample controller as a reconciler: for(Foo) reconciles a Foo when its spec changes
 * (generation), owns(Deployment) when its Deployment does. It needs no finalizer: what it
 * creates is owned, so the garbage collector cleans up after a deleted Foo.
 */
export class FooController implements Reconciler {
  readonly controller: Controller<string>;
  private readonly manager: Manager;
  private readonly foos: ResourceClient<Foo>;
  private readonly fooLister: Lister<Foo>;
  private readonly deployments: ResourceClient<Deployment>;
  private readonly deploymentLister: Lister<Deployment>;
  private readonly options: ControllerOptions;

  constructor(options: ControllerOptions) {
    this.options = options;
    // The demo's shared informers: one watch per resource for every controller of the process.
    this.manager = new Manager({
      client: options.client,
      informers: options.factory,
      ...(options.logger ? { logger: options.logger } : {}),
    });
    this.foos = options.client.resource<Foo>(foos);
    this.fooLister = options.factory.informerFor<Foo>(foos).lister();
    this.deployments = options.client.resource<Deployment>(resources.deployments);
    this.deploymentLister = options.factory.informerFor<Deployment>(resources.deployments).lister();
    this.controller = newControllerManagedBy(this.manager)
      .named('foo')
      .for(foos, { predicates: [generationChangedPredicate] })
      // A resync (the same resourceVersion) is no news: sample-controller's handleObject check.
      .owns(resources.deployments, { predicates: [resourceVersionChangedPredicate] })
      .withOptions({ maxConcurrentReconciles: options.workers ?? 2 })
      .complete(this);
  }

  /** Runs until `signal` aborts; the shared informers stay the caller's to stop. */
  run(signal: AbortSignal): Promise<void> {
    return this.manager.start(signal);
  }

  /** controller.go syncHandler; a thrown error is retried with the queue's rate limiter. */
  async reconcile({ namespace, name }: Request): Promise<void> {
    const foo = cachedObject(this.fooLister, namespace, name);
    if (!foo) return; // gone: its Deployment is the garbage collector's
    const deploymentName = foo.spec?.deploymentName ?? '';
    if (!deploymentName) return; // "deployment name must be specified": nothing to retry
    let deployment =
      cachedObject(this.deploymentLister, namespace, deploymentName) ??
      (await this.deployments.namespace(namespace).create(newDeployment(foo)));
    if (controllerOf(deployment)?.uid !== foo.metadata.uid) {
      const message = resourceExistsMessage(deploymentName);
      await this.updateFooStatus(foo, undefined, {
        type: FOO_READY,
        status: 'False',
        reason: 'ErrResourceExists',
        message,
      });
      this.event(foo, 'Warning', 'ErrResourceExists', message);
      throw new Error(message);
    }
    const want = foo.spec?.replicas;
    if (want !== undefined && want !== (deployment.spec?.replicas ?? 1)) {
      const desired = newDeployment(foo);
      deployment = await this.deployments
        .namespace(namespace)
        .update({ ...desired, metadata: { ...deployment.metadata, ...desired.metadata } });
    }
    await this.updateFooStatus(foo, deployment, {
      type: FOO_READY,
      status: 'True',
      reason: 'Synced',
      message: 'Foo synced successfully',
    });
    this.event(foo, 'Normal', 'Synced', 'Foo synced successfully');
  }

  private event(foo: Foo, type: 'Normal' | 'Warning', reason: string, message: string): void {
    recordEvent(this.options.recorder, foos, foo, type, reason, message);
  }

  /**
   * controller.go updateFooStatus: the Deployment's availableReplicas and the Ready condition
   * (apimachinery meta.SetStatusCondition), by server-side apply of the status subresource as
   * `sample-controller` (the uid guards against a recreated Foo). No write when nothing changed.
   */
  private async updateFooStatus(
    foo: Foo,
    deployment: Deployment | undefined,
    ready: ConditionInput,
  ): Promise<void> {
    const conditions = (foo.status?.conditions ?? []).map((c) => ({ ...c }));
    const changed = setStatusCondition(conditions, {
      ...ready,
      ...(foo.metadata.generation !== undefined
        ? { observedGeneration: foo.metadata.generation }
        : {}),
    });
    const available = deployment ? (deployment.status?.availableReplicas ?? 0) : undefined;
    if (!changed && foo.status?.availableReplicas === available) return;
    await this.foos.namespace(foo.metadata.namespace ?? '').applyStatus(
      {
        apiVersion: FOO_API_VERSION,
        kind: 'Foo',
        metadata: { name: foo.metadata.name ?? '', uid: foo.metadata.uid ?? '' },
        status: {
          ...(available !== undefined ? { availableReplicas: available } : {}),
          conditions,
        },
      },
      { fieldManager: 'sample-controller', force: true },
    );
  }
}
