import {
  ApiError,
  apiVersionOf,
  validateObjectMeta,
  type KubeObject,
  type ResourceDefinition,
} from '@listwatch/api';
import { checkTypeMeta, invalid } from './create.js';
import type { ServedResource } from './resource-strategy.js';

// The generic steps of an update (k8s.io/apiserver pkg/registry/rest/update.go BeforeUpdate),
// around what the resource's strategy adds.

export function hasStatusSubresource(definition: ResourceDefinition): boolean {
  return definition.subresources.includes('status');
}

/** A body's name must be the URL's (handlers/rest.go checkName): 400 otherwise. */
export function checkObjectName(object: KubeObject, name: string): void {
  // A body or patch that drops the name (`remove /metadata`, `{"metadata":null}`) is refused too.
  if ((object.metadata.name ?? '') !== name) {
    throw ApiError.badRequest(
      `the name of the object (${object.metadata.name ?? ''}) does not match the name on the URL (${name})`,
    );
  }
}

/**
 * BeforeUpdate on the main resource or its status: identity fields stay, the status subresource
 * only changes status, the main resource never does (when a status subresource exists), and
 * generation stays unless the strategy bumps it (rest/update.go BeforeUpdate).
 */
export function prepareForUpdate(
  { definition, strategy }: ServedResource,
  next: KubeObject,
  current: KubeObject,
  subresource: string | undefined,
): KubeObject {
  checkTypeMeta(definition, next);
  const name = current.metadata.name ?? '';
  checkObjectName(next, name);
  if (
    definition.namespaced &&
    next.metadata.namespace &&
    next.metadata.namespace !== current.metadata.namespace
  ) {
    throw ApiError.badRequest(
      'the namespace of the provided object does not match the namespace sent on the request',
    );
  }
  let result: KubeObject;
  if (subresource === 'status') {
    // Status writes keep everything else, metadata included (status strategies' PrepareForUpdate).
    result = { ...current, metadata: { ...current.metadata } };
    if ('status' in next) result['status'] = next['status'];
    else delete result['status'];
  } else {
    result = { ...next, metadata: { ...next.metadata } };
    if (hasStatusSubresource(definition)) {
      if ('status' in current) result['status'] = current['status'];
      else delete result['status'];
    }
  }
  const meta = result.metadata;
  meta.name = name;
  if (definition.namespaced) meta.namespace = current.metadata.namespace ?? '';
  else delete meta.namespace;
  if (current.metadata.generation !== undefined) meta.generation = current.metadata.generation;
  else delete meta.generation;
  // The status strategy's own PrepareForUpdate, or the main one's (which may bump generation).
  if (subresource === 'status') strategy.prepareForStatusUpdate?.(result, next);
  else strategy.prepareForUpdate?.(result, current);
  if (subresource !== undefined && subresource !== 'status')
    strategy.updateSubresources?.[subresource]?.(result, current);
  if (current.metadata.uid !== undefined) meta.uid = current.metadata.uid;
  if (current.metadata.creationTimestamp !== undefined)
    meta.creationTimestamp = current.metadata.creationTimestamp;
  if (current.metadata.deletionTimestamp !== undefined)
    meta.deletionTimestamp = current.metadata.deletionTimestamp;
  else delete meta.deletionTimestamp;
  // Only a delete sets the grace period (ValidateObjectMetaUpdate: immutable).
  if (current.metadata.deletionGracePeriodSeconds !== undefined)
    meta.deletionGracePeriodSeconds = current.metadata.deletionGracePeriodSeconds;
  else delete meta.deletionGracePeriodSeconds;
  result.apiVersion = apiVersionOf(definition);
  result.kind = definition.kind;
  const { generateName: _generated, ...identity } = meta;
  const errors = [
    ...validateObjectMeta(identity, {
      namespaced: definition.namespaced,
      nameRule: definition.nameRule,
    }).filter((e) => e.field !== 'metadata.name' || !current.metadata.name),
    // A status write changes status only: the rest was validated when it was written.
    ...(subresource === 'status' ? [] : (strategy.validate?.(result) ?? [])),
    ...(strategy.validateUpdate?.(result, current) ?? []),
  ];
  if (errors.length) throw invalid(definition, name, errors);
  return result;
}
