import {
  ApiError,
  apiVersionOf,
  generateName,
  metaV1Now,
  validateObjectMeta,
  type FieldError,
  type KubeObject,
  type ResourceDefinition,
} from '@listwatch/api';
import { randomUUID } from 'node:crypto';
import type { ServedResource } from './resource-strategy.js';

// The generic steps of a create (k8s.io/apiserver pkg/registry/rest/create.go BeforeCreate),
// around what the resource's strategy adds.

/** A 422 Invalid naming the object of `definition`'s kind. */
export function invalid(
  definition: ResourceDefinition,
  name: string,
  errors: FieldError[],
): ApiError {
  return ApiError.invalid(
    { kind: definition.kind, ...(definition.group ? { group: definition.group } : {}) },
    name,
    errors,
  );
}

/** Checks apiVersion/kind of a body against the resource it was sent to (400 otherwise). */
export function checkTypeMeta(definition: ResourceDefinition, object: KubeObject): void {
  const expected = apiVersionOf(definition);
  if (object.apiVersion !== undefined && object.apiVersion !== expected) {
    throw ApiError.badRequest(
      `the API version in the data (${object.apiVersion}) does not match the expected API version (${expected})`,
    );
  }
  if (object.kind !== undefined && object.kind !== definition.kind) {
    throw ApiError.badRequest(
      `the kind in the data (${object.kind}) does not match the expected kind (${definition.kind})`,
    );
  }
}

/**
 * BeforeCreate: type meta, namespace from the URL, generateName, uid, creationTimestamp,
 * server-owned fields cleared, then ObjectMeta validation (422). Generation is the strategy's
 * (rest/create.go leaves it as sent; deployments and replicasets start it at 1).
 */
export function prepareForCreate(
  { definition, strategy }: ServedResource,
  object: KubeObject,
  namespace: string | undefined,
): KubeObject {
  checkTypeMeta(definition, object);
  const meta = object.metadata;
  if (definition.namespaced) {
    if (meta.namespace && namespace && meta.namespace !== namespace) {
      throw ApiError.badRequest(
        'the namespace of the provided object does not match the namespace sent on the request',
      );
    }
    meta.namespace = meta.namespace || namespace || '';
  } else {
    delete meta.namespace;
  }
  // kube's order: the name, the system fields (handlers/create.go FillObjectMetaSystemFields),
  // PrepareForCreate, then Validate (the job strategy's Validate builds its selector from the uid).
  if (!meta.name && meta.generateName) meta.name = generateName(meta.generateName);
  object.apiVersion = apiVersionOf(definition);
  object.kind = definition.kind;
  meta.uid = randomUUID();
  meta.creationTimestamp = metaV1Now();
  delete meta.resourceVersion;
  delete meta.deletionTimestamp;
  delete meta.deletionGracePeriodSeconds;
  delete meta.selfLink;
  strategy.prepareForCreate?.(object);
  const errors = [
    ...validateObjectMeta(meta, {
      namespaced: definition.namespaced,
      nameRule: definition.nameRule,
    }),
    ...(strategy.validate?.(object) ?? []),
    ...(strategy.validateCreate?.(object) ?? []),
  ];
  if (errors.length) throw invalid(definition, meta.name ?? '', errors);
  return object;
}
