import type { KubeObject } from '@listwatch/api';

// apiextensions.k8s.io/v1 as the apiserver reads it (k8s.io/apiextensions-apiserver
// pkg/apis/apiextensions/v1/types.go, types_jsonschema.go). Written by hand: the schema source is
// generated from kubernetes/api's .proto files, which do not hold these types.

export const GROUP = 'apiextensions.k8s.io';

/** A JSONSchemaProps node, as sent: anything may be wrong with it until it is validated. */
export type JSONSchemaProps = Record<string, unknown>;

export interface CustomResourceDefinitionNames {
  plural?: string;
  singular?: string;
  shortNames?: string[];
  kind?: string;
  listKind?: string;
  categories?: string[];
}

export interface CustomResourceColumnDefinition {
  name: string;
  type: string;
  format?: string;
  description?: string;
  priority?: number;
  jsonPath: string;
}

export interface CustomResourceSubresources {
  status?: Record<string, never>;
  scale?: {
    specReplicasPath: string;
    statusReplicasPath: string;
    labelSelectorPath?: string;
  };
}

export interface CustomResourceDefinitionVersion {
  name: string;
  served: boolean;
  storage: boolean;
  deprecated?: boolean;
  deprecationWarning?: string;
  schema?: { openAPIV3Schema?: JSONSchemaProps };
  subresources?: CustomResourceSubresources;
  additionalPrinterColumns?: CustomResourceColumnDefinition[];
  selectableFields?: { jsonPath: string }[];
}

export interface CustomResourceDefinitionCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

export interface CustomResourceDefinition extends KubeObject {
  spec: {
    group: string;
    names: CustomResourceDefinitionNames;
    scope: 'Namespaced' | 'Cluster';
    versions: CustomResourceDefinitionVersion[];
    conversion?: { strategy: string; webhook?: unknown };
    preserveUnknownFields?: boolean;
  };
  status?: {
    conditions?: CustomResourceDefinitionCondition[];
    acceptedNames?: CustomResourceDefinitionNames;
    storedVersions?: string[];
  };
}

/** The condition of a type, if the CRD has it. */
export function conditionOf(
  crd: CustomResourceDefinition,
  type: string,
): CustomResourceDefinitionCondition | undefined {
  return crd.status?.conditions?.find((c) => c.type === type);
}

export function isConditionTrue(crd: CustomResourceDefinition, type: string): boolean {
  return conditionOf(crd, type)?.status === 'True';
}
