import {
  ApiError,
  APPLY_PATCH_CBOR_TYPE,
  fieldErrors,
  queryBool,
  type KubeObject,
} from '@listwatch/api';
import { parseDocument } from 'yaml';
import { atomFromStructural, FieldManager, managerOrUserAgent } from '../fieldmanager/index.js';
import { badPatch } from '../patch/patch-error.js';
import {
  isJsonObject,
  jsonKindName,
  type JsonObject,
  type JsonValue,
} from '../patch/json-value.js';
import { hasStatusSubresource } from '../registry/rest/update.js';
import type { ServedResource } from '../registry/rest/resource-strategy.js';
import type { WriteOptionsKind } from '../registry/field-validation.js';
import type { RequestScope } from './request-scope.js';
import { decodeBody } from './body.js';

// What the write handlers ask of the field manager: the manager a request writes as
// (`fieldManager`, else its User-Agent, as create.go managerOrUserAgent), the field manager of
// a resource and subresource, and an apply patch body read as YAML (patch.go applyPatcher).

const managers = new WeakMap<ServedResource, Map<string, FieldManager>>();

/** The FieldManager of a resource (or of its status subresource), made once. */
export function fieldManagerOf(
  resource: ServedResource,
  subresource: string | undefined,
): FieldManager {
  let bySub = managers.get(resource);
  if (!bySub) managers.set(resource, (bySub = new Map<string, FieldManager>()));
  let fm = bySub.get(subresource ?? '');
  if (!fm) {
    const { definition } = resource;
    const { structural } = resource.strategy;
    fm = new FieldManager({
      gvk: { group: definition.group, version: definition.version, kind: definition.kind },
      ...(subresource ? { subresource } : {}),
      hasStatusSubresource: hasStatusSubresource(definition),
      ...(structural ? { atom: atomFromStructural(structural) } : {}),
    });
    bySub.set(subresource ?? '', fm);
  }
  return fm;
}

const MAX_MANAGER_LENGTH = 128;

/**
 * The `fieldManager` query parameter, validated as ValidateFieldManager does (422 for one over
 * 128 characters or with unprintable ones).
 */
export function fieldManagerParam(
  query: URLSearchParams,
  optionsKind: WriteOptionsKind,
): string | undefined {
  const value = query.get('fieldManager') ?? '';
  const errors = [];
  if ([...value].length > MAX_MANAGER_LENGTH) {
    errors.push(fieldErrors.tooLong('fieldManager', MAX_MANAGER_LENGTH));
  }
  let position = 0;
  for (const ch of value) {
    if (/[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}]/u.test(ch)) {
      const code = ch.codePointAt(0) ?? 0;
      const hex = code.toString(16).toUpperCase().padStart(4, '0');
      errors.push(
        fieldErrors.invalid(
          'fieldManager',
          value,
          `invalid character U+${hex} (at position ${position})`,
        ),
      );
    }
    position += Buffer.byteLength(ch);
  }
  if (errors.length)
    throw ApiError.invalid({ group: 'meta.k8s.io', kind: optionsKind }, '', errors);
  return value || undefined;
}

/** The manager a create, update or non-apply patch writes as. */
export function updateManager(scope: RequestScope, optionsKind: WriteOptionsKind): string {
  return managerOrUserAgent(
    fieldManagerParam(scope.query, optionsKind),
    scope.ctx.get('user-agent'),
  );
}

/** Records what a create (`current` undefined), update or patch changed in managedFields. */
export function trackUpdate(
  scope: RequestScope,
  current: KubeObject | undefined,
  next: KubeObject,
  subresource: string | undefined,
  manager: string,
): KubeObject {
  return fieldManagerOf(scope.store, subresource).update(current, next, manager);
}

/** PatchOptions of an apply: `fieldManager` is required, `force` optional (ValidatePatchOptions). */
export function applyOptions(scope: RequestScope): { manager: string; force: boolean } {
  const manager = fieldManagerParam(scope.query, 'PatchOptions');
  if (!manager) {
    throw ApiError.invalid({ group: 'meta.k8s.io', kind: 'PatchOptions' }, '', [
      fieldErrors.required('fieldManager', 'is required for apply patch'),
    ]);
  }
  return { manager, force: queryBool(scope.query.getAll('force')) };
}

/** A non-apply patch may not say `force` (ValidatePatchOptions). */
export function refuseForce(scope: RequestScope): void {
  if (scope.query.has('force')) {
    throw ApiError.invalid({ group: 'meta.k8s.io', kind: 'PatchOptions' }, '', [
      fieldErrors.forbidden('force', 'may not be specified for non-apply patch'),
    ]);
  }
}

/** An apply patch body: YAML (JSON is YAML), one object (applyPatcher's yaml.Unmarshal). */
export function parseApplyPatch(body: Buffer, mediaType: string): JsonObject {
  if (mediaType === APPLY_PATCH_CBOR_TYPE)
    return configurationObject(decodeBody(body, 'application/cbor'));
  const text = body.toString('utf8');
  // sigs.k8s.io/yaml reads YAML 1.1 (go-yaml v2): `yes` and `on` are booleans there.
  const doc = parseDocument(text, { version: '1.1', uniqueKeys: true });
  if (doc.errors.length) {
    throw badPatch(`error decoding patch: ${doc.errors[0]?.message ?? 'invalid YAML'}`);
  }
  return configurationObject(doc.toJS({ maxAliasCount: 100 }));
}

/** The decoded configuration, which must be an object (or nothing: an empty one). */
function configurationObject(value: unknown): JsonObject {
  if (value === null || value === undefined) return {};
  const json = value as JsonValue;
  if (!isJsonObject(json)) {
    throw badPatch(
      `error decoding patch: error unmarshaling JSON: json: cannot unmarshal ${jsonKindName(json)} into Go value of type map[string]interface {}`,
    );
  }
  return json;
}
