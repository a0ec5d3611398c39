import type { CustomResourceDefinition } from 'kubernetes-types/apiextensions/v1.js';
import type { ObjectMeta } from 'kubernetes-types/meta/v1.js';
import type { RestClient } from '../rest/client.js';
import { apiextensionsV1, typedResource } from '../typed/resources.js';
import { eventually } from './eventually.js';

/** kubernetes/sample-controller's Foo, as its CRD declares it. */
export interface Foo {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: { deploymentName?: string; replicas?: number };
  status?: { availableReplicas?: number };
}

export const FOO_GROUP = 'samplecontroller.k8s.io';

export const fooCRD: CustomResourceDefinition = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: {
    name: `foos.${FOO_GROUP}`,
    // As sample-controller's artifacts: *.k8s.io groups need it.
    annotations: { 'api-approved.kubernetes.io': 'unapproved, experimental-only' },
  },
  spec: {
    group: FOO_GROUP,
    scope: 'Namespaced',
    names: {
      plural: 'foos',
      singular: 'foo',
      kind: 'Foo',
      listKind: 'FooList',
      shortNames: ['fo'],
    },
    versions: [
      {
        name: 'v1alpha1',
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                properties: { deploymentName: { type: 'string' }, replicas: { type: 'integer' } },
              },
              status: { type: 'object', properties: { availableReplicas: { type: 'integer' } } },
            },
          },
        },
      },
    ],
  },
};

export const foos = typedResource<Foo>({
  group: FOO_GROUP,
  version: 'v1alpha1',
  kind: 'Foo',
  plural: 'foos',
  namespaced: true,
});

/** Creates the Foo CRD and waits until it is Established (served). */
export async function createFooCRD(client: RestClient): Promise<void> {
  const crds = client.resource(apiextensionsV1.customresourcedefinitions);
  await crds.create(fooCRD);
  await eventually(async () => {
    const crd = await crds.get(fooCRD.metadata!.name!);
    const established = crd.status?.conditions?.find((c) => c.type === 'Established');
    if (established?.status !== 'True') throw new Error('not Established yet');
  });
}

export function foo(namespace: string, name: string, replicas = 1): Foo {
  return {
    apiVersion: `${FOO_GROUP}/v1alpha1`,
    kind: 'Foo',
    metadata: { namespace, name },
    spec: { deploymentName: `${name}-deployment`, replicas },
  };
}
