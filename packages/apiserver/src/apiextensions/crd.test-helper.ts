import { eventually } from '@listwatch/testing';
import type { KubeObject } from '@listwatch/api';
import type { CustomResourceDefinition } from './types.js';

/** A namespaced `Foo` CRD with a schema, printer columns, status and scale subresources. */
export function fooCrd(
  options: {
    group?: string;
    plural?: string;
    kind?: string;
    scope?: 'Namespaced' | 'Cluster';
  } = {},
): CustomResourceDefinition {
  const group = options.group ?? 'example.com';
  const plural = options.plural ?? 'foos';
  const kind = options.kind ?? 'Foo';
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      scope: options.scope ?? 'Namespaced',
      names: {
        plural,
        singular: kind.toLowerCase(),
        kind,
        listKind: `${kind}List`,
        shortNames: [`${plural.slice(0, 2)}x`],
        categories: ['all'],
      },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: {
            openAPIV3Schema: {
              type: 'object',
              properties: {
                spec: {
                  type: 'object',
                  description: 'The desired state of the Foo.',
                  required: ['deploymentName'],
                  properties: {
                    deploymentName: {
                      type: 'string',
                      minLength: 1,
                      description: 'The name of the Deployment.',
                    },
                    replicas: { type: 'integer', minimum: 0, maximum: 10, default: 1 },
                    color: { type: 'string', enum: ['red', 'blue'] },
                    port: { 'x-kubernetes-int-or-string': true },
                    tags: {
                      type: 'array',
                      items: { type: 'string' },
                      'x-kubernetes-list-type': 'set',
                    },
                    extra: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
                  },
                },
                status: {
                  type: 'object',
                  properties: {
                    availableReplicas: { type: 'integer' },
                    selector: { type: 'string' },
                  },
                },
              },
            },
          },
          subresources: {
            status: {},
            scale: {
              specReplicasPath: '.spec.replicas',
              statusReplicasPath: '.status.availableReplicas',
              labelSelectorPath: '.status.selector',
            },
          },
          additionalPrinterColumns: [
            { name: 'Deployment', type: 'string', jsonPath: '.spec.deploymentName' },
            { name: 'Replicas', type: 'integer', jsonPath: '.spec.replicas' },
            { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
          ],
          selectableFields: [{ jsonPath: '.spec.color' }],
        },
      ],
    },
  };
}

export function foo(
  name: string,
  spec: Record<string, unknown>,
  group = 'example.com',
): KubeObject {
  return { apiVersion: `${group}/v1`, kind: 'Foo', metadata: { name }, spec };
}

interface Api {
  get: <T = KubeObject>(path: string) => Promise<{ status: number; body: T }>;
}

/** Waits until the CRD is Established and its resources answer a list. */
export async function waitServed(api: Api, crd: CustomResourceDefinition): Promise<void> {
  const name = crd.metadata.name ?? '';
  const version = crd.spec.versions[0]?.name ?? 'v1';
  await eventually(async () => {
    const got = await api.get<CustomResourceDefinition>(
      `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`,
    );
    const established = got.body.status?.conditions?.find((c) => c.type === 'Established');
    if (established?.status !== 'True') return undefined;
    const list = await api.get(`/apis/${crd.spec.group}/${version}/${crd.spec.names.plural}`);
    return list.status === 200 ? true : undefined;
  }, `${name} established and served`);
}
