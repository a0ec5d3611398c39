import { fieldErrors, type FieldError, type KubeObject } from '@listwatch/api';
import { semanticEqual } from '@listwatch/api';
import { decodedBase64Length, isConfigMapKey, MAX_SECRET_SIZE } from '../secret/strategy.js';
import type * as corev1 from 'kubernetes-types/core/v1.js';
import type { ResourceStrategy } from '../../rest/resource-strategy.js';
import type { TypedObject } from '../../rest/typed-object.js';

// The ConfigMap's validation: k8s.io/kubernetes pkg/apis/core/validation/validation.go
// (ValidateConfigMap, ValidateConfigMapUpdate). ConfigMap data is string-only by its Go type,
// which decoding already enforces (400).

/** A ConfigMap as decoded (kubernetes-types' core/v1 ConfigMap). */
export type ConfigMap = TypedObject<corev1.ConfigMap>;

/** ValidateConfigMap: config keys, no key in both data and binaryData, 1 MiB in all. */
export function validateConfigMap(configMap: ConfigMap): FieldError[] {
  const errs: FieldError[] = [];
  let total = 0;
  const data = configMap.data ?? {};
  for (const [key, value] of Object.entries(data)) {
    for (const msg of isConfigMapKey(key)) errs.push(fieldErrors.invalid(`data[${key}]`, key, msg));
    total += Buffer.byteLength(value);
  }
  for (const [key, value] of Object.entries(configMap.binaryData ?? {})) {
    const field = `binaryData[${key}]`;
    for (const msg of isConfigMapKey(key)) errs.push(fieldErrors.invalid(field, key, msg));
    if (Object.hasOwn(data, key))
      errs.push(fieldErrors.invalid(field, key, 'duplicate of key present in data'));
    // A []byte that is not base64 fails kube's decode; here it is a 422 naming the key.
    const size = decodedBase64Length(value);
    if (typeof size === 'string') errs.push(fieldErrors.invalid(field, value, size));
    else total += size;
  }
  if (total > MAX_SECRET_SIZE) errs.push(fieldErrors.tooLong('', MAX_SECRET_SIZE));
  return errs;
}

/**
 * ValidateConfigMapUpdate and ValidateSecretUpdate's shared rule: once `immutable: true`, it
 * stays, and the data fields do not change.
 */
export function validateImmutableData(
  next: KubeObject,
  current: KubeObject,
  dataFields: readonly string[],
): FieldError[] {
  if (current['immutable'] !== true) return [];
  const errs: FieldError[] = [];
  const detail = 'field is immutable when `immutable` is set';
  if (next['immutable'] !== true) errs.push(fieldErrors.forbidden('immutable', detail));
  for (const field of dataFields)
    if (!semanticEqual(next[field], current[field]))
      errs.push(fieldErrors.forbidden(field, detail));
  return errs;
}

export const configMapStrategy: ResourceStrategy<ConfigMap> = {
  validate: validateConfigMap,
  validateUpdate: (next, current) => validateImmutableData(next, current, ['data', 'binaryData']),
};
