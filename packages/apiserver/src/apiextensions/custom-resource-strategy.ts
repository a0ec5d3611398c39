import { ApiError, isRecord, type KubeObject } from '@listwatch/api';
import { replicasPath, type ReplicasPathMappings } from '../fieldmanager/index.js';
import { scaleOf, type ScaleStrategy } from '../registry/autoscaling/scale.js';
import type { ResourceStrategy } from '../registry/rest/resource-strategy.js';
import { parseSimplePath, valueAt, type PathStep } from './jsonpath.js';
import { compileRules, hasRules } from './cel-validation.js';
import { compileSchema } from './schema-validator.js';
import { customResourceRoot } from './schema/builtin.js';
import { fromOpenAPI } from './schema/structural.js';
import {
  type CustomResourceDefinition,
  type CustomResourceDefinitionVersion,
  type JSONSchemaProps,
} from './types.js';

// The strategy of one served CRD version's objects (apiextensions-apiserver
// pkg/registry/customresource/strategy.go, validator.go, status_strategy.go and the scale
// subresource of etcd.go): structural pruning and defaulting on decode, schema validation,
// generation bumped on changes outside metadata (and status, when it is a subresource).

function withoutMetaAndStatus(object: KubeObject, statusEnabled: boolean): string {
  const { metadata: _m, status, ...rest } = object;
  return JSON.stringify(statusEnabled ? rest : { ...rest, status });
}

function setAt(object: KubeObject, steps: readonly PathStep[], value: unknown): KubeObject {
  const copy = structuredClone(object) as Record<string, unknown>;
  let cursor: Record<string, unknown> = copy;
  steps.forEach((step, i) => {
    const key = String(step);
    if (i === steps.length - 1) cursor[key] = value;
    else {
      if (!isRecord(cursor[key])) cursor[key] = {};
      cursor = cursor[key] as Record<string, unknown>;
    }
  });
  return copy as KubeObject;
}

/** The scale subresource by the CRD's paths (etcd.go scaleFromCustomResource). */
function scaleStrategy(
  scale: NonNullable<CustomResourceDefinitionVersion['subresources']>['scale'],
  crd: CustomResourceDefinition,
): ScaleStrategy | undefined {
  if (!scale) return undefined;
  const spec = parseSimplePath(scale.specReplicasPath) ?? [];
  const status = parseSimplePath(scale.statusReplicasPath) ?? [];
  const selector = scale.labelSelectorPath ? parseSimplePath(scale.labelSelectorPath) : undefined;
  return {
    toScale(object) {
      const replicas = valueAt(object, spec);
      const current = valueAt(object, status);
      const labelSelector = selector ? valueAt(object, selector) : undefined;
      return scaleOf(
        object,
        typeof replicas === 'number' ? replicas : 0,
        typeof current === 'number' ? current : 0,
        typeof labelSelector === 'string' ? labelSelector : undefined,
      );
    },
    withScale(object, scaleObject) {
      const replicas = isRecord(scaleObject['spec']) ? scaleObject['spec']['replicas'] : undefined;
      return setAt(object, spec, typeof replicas === 'number' ? replicas : 0);
    },
    replicasPaths: replicasPathMappings(crd),
  };
}

/**
 * customresource_handler.go replicasPathInCustomResource: each version's specReplicasPath, none
 * for a version without a scale subresource (its entries are kept as they are).
 */
function replicasPathMappings(crd: CustomResourceDefinition): ReplicasPathMappings {
  return new Map(
    crd.spec.versions.map((v) => {
      const path = v.subresources?.scale?.specReplicasPath;
      return [`${crd.spec.group}/${v.name}`, path ? replicasPath(path) : undefined];
    }),
  );
}

/**
 * customresource_handler.go serveResource: while the CRD terminates every verb is served but
 * create, a 405 (the finalizer is deleting the objects; their own finalizers still run).
 */
function refuseCreateWhileTerminating(crd: CustomResourceDefinition): ApiError {
  const err = ApiError.methodNotAllowed(
    'create not allowed while custom resource definition is terminating',
  );
  err.status.details = { group: crd.spec.group, kind: crd.spec.names.plural ?? '' };
  return err;
}

/**
 * The strategy of `version`'s objects; its schema is compiled here, once. `terminating` says
 * whether the CRD is being deleted now (the CRD handler's view of it).
 */
export function customResourceStrategy(
  crd: CustomResourceDefinition,
  version: CustomResourceDefinitionVersion,
  terminating?: () => boolean,
): ResourceStrategy {
  const schema: JSONSchemaProps = isRecord(version.schema?.openAPIV3Schema)
    ? version.schema.openAPIV3Schema
    : { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
  const validator = compileSchema(schema);
  const rules = hasRules(schema) ? compileRules(schema, '').rules : undefined;
  const statusEnabled = version.subresources?.status !== undefined;
  const scale = scaleStrategy(version.subresources?.scale, crd);
  // One structural schema, rooted as the CRD's published OpenAPI (metadata an ObjectMeta), that
  // pruning, defaulting and server-side apply walk (customresource_handler.go builds the
  // version's TypeConverter from it too).
  const structural = customResourceRoot(fromOpenAPI(schema));
  return {
    // Pruned and defaulted by it on decode (registry/rest/decode.ts), in one walk on a write.
    structural,
    prepareForCreate(object) {
      if (statusEnabled) delete object['status'];
      object.metadata.generation = 1;
    },
    prepareForUpdate(next, current) {
      if (
        withoutMetaAndStatus(next, statusEnabled) !== withoutMetaAndStatus(current, statusEnabled)
      )
        next.metadata.generation = (current.metadata.generation ?? 0) + 1;
    },
    // The schema and the rules on create; on update (the status subresource's too) the same
    // with transition rules (those naming oldSelf), which see the stored object.
    validateCreate(object) {
      const errors = validator.validate(object);
      return rules ? [...errors, ...rules.validate(object)] : errors;
    },
    validateUpdate(object, old) {
      const errors = validator.validate(object);
      return rules ? [...errors, ...rules.validate(object, old)] : errors;
    },
    ...(scale ? { scale } : {}),
    ...(terminating
      ? {
          admit({ operation }) {
            if (operation === 'CREATE' && terminating()) throw refuseCreateWhileTerminating(crd);
          },
        }
      : {}),
  };
}
