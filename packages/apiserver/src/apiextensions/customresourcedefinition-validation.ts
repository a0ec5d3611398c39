import {
  fieldErrors,
  isDNS1035Label,
  isDNS1123Subdomain,
  isRecord,
  type FieldError,
} from '@listwatch/api';
import { compileRules } from './cel-validation.js';
import { compileSchema } from './schema-validator.js';
import { validateOpenAPISchema } from './schema/validation.js';
import { type CustomResourceDefinition, type CustomResourceDefinitionNames } from './types.js';

// ValidateCustomResourceDefinition and ValidateCustomResourceDefinitionUpdate
// (apiextensions-apiserver pkg/apis/apiextensions/validation/validation.go), for the v1 shape.

const PRINTER_TYPES = ['boolean', 'date', 'integer', 'number', 'string'];
const PRINTER_FORMATS = [
  'byte',
  'date',
  'date-time',
  'double',
  'float',
  'int32',
  'int64',
  'name',
  'password',
];

/** The names a CRD declares, in spec or status (ValidateCustomResourceDefinitionNames). */
export function validateNames(names: CustomResourceDefinitionNames, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const label = (value: unknown) =>
    typeof value === 'string' ? isDNS1035Label(value) : ['must be a string'];
  if (names.plural) {
    const errs = label(names.plural);
    if (errs.length)
      errors.push(fieldErrors.invalid(`${path}.plural`, names.plural, errs.join(',')));
  }
  if (names.singular) {
    const errs = label(names.singular);
    if (errs.length)
      errors.push(fieldErrors.invalid(`${path}.singular`, names.singular, errs.join(',')));
  }
  for (const key of ['kind', 'listKind'] as const) {
    const value = names[key];
    if (!value) continue;
    const errs = label(typeof value === 'string' ? value.toLowerCase() : value);
    if (errs.length)
      errors.push(
        fieldErrors.invalid(
          `${path}.${key}`,
          value,
          `may have mixed case, but should otherwise match: ${errs.join(',')}`,
        ),
      );
  }
  (Array.isArray(names.shortNames) ? names.shortNames : []).forEach((s, i) => {
    const errs = label(s);
    if (errs.length)
      errors.push(fieldErrors.invalid(`${path}.shortNames[${i}]`, s, errs.join(',')));
  });
  if (names.kind && names.kind === names.listKind) {
    errors.push(
      fieldErrors.invalid(
        `${path}.listKind`,
        names.listKind,
        'kind and listKind may not be the same',
      ),
    );
  }
  (Array.isArray(names.categories) ? names.categories : []).forEach((c, i) => {
    const errs = label(c);
    if (errs.length)
      errors.push(fieldErrors.invalid(`${path}.categories[${i}]`, c, errs.join(',')));
  });
  return errors;
}

/** Every problem with a CRD's name and spec, with kube's field paths. */
export function validateCustomResourceDefinition(crd: CustomResourceDefinition): FieldError[] {
  const errors: FieldError[] = [];
  const spec = isRecord(crd.spec) ? crd.spec : ({} as CustomResourceDefinition['spec']);
  const names: CustomResourceDefinitionNames = isRecord(spec.names) ? spec.names : {};
  const group = typeof spec.group === 'string' ? spec.group : '';
  const name = crd.metadata.name ?? '';
  const plural = typeof names.plural === 'string' ? names.plural : '';
  if (name && name !== `${plural}.${group}`) {
    errors.push(
      fieldErrors.invalid('metadata.name', name, 'must be spec.names.plural+"."+spec.group'),
    );
  }
  if (!group) errors.push(fieldErrors.required('spec.group'));
  else {
    const errs = isDNS1123Subdomain(group);
    if (errs.length) errors.push(fieldErrors.invalid('spec.group', group, errs.join(',')));
    else if (group.split('.').length < 2)
      errors.push(
        fieldErrors.invalid('spec.group', group, 'should be a domain with at least one dot'),
      );
  }
  if (!spec.scope) errors.push(fieldErrors.required('spec.scope'));
  else if (spec.scope !== 'Cluster' && spec.scope !== 'Namespaced')
    errors.push(fieldErrors.notSupported('spec.scope', spec.scope, ['Cluster', 'Namespaced']));

  const versions = Array.isArray(spec.versions) ? spec.versions : [];
  let storage = 0;
  const seen = new Set<string>();
  let unique = true;
  versions.forEach((v, i) => {
    const at = `spec.versions[${i}]`;
    if (!isRecord(v)) {
      errors.push(fieldErrors.invalid(at, v, 'must be an object'));
      return;
    }
    if (v.storage === true) storage++;
    const vname = typeof v.name === 'string' ? v.name : '';
    if (seen.has(vname)) unique = false;
    seen.add(vname);
    const errs = isDNS1035Label(vname);
    if (errs.length) errors.push(fieldErrors.invalid(`${at}.name`, vname, errs.join(',')));
    const statusEnabled = isRecord(v.subresources) && isRecord(v.subresources.status);
    const schema = isRecord(v.schema) ? v.schema.openAPIV3Schema : undefined;
    if (schema === undefined) errors.push(fieldErrors.required(`${at}.schema.openAPIV3Schema`));
    else {
      const schemaErrors = validateOpenAPISchema(schema, `${at}.schema.openAPIV3Schema`, {
        statusSubresource: statusEnabled,
      });
      errors.push(...schemaErrors);
      // validation.go: a schema the validator cannot be built from is refused, not served.
      if (!schemaErrors.length && isRecord(schema)) {
        try {
          compileSchema(schema);
          errors.push(...compileRules(schema, `${at}.schema.openAPIV3Schema`).errors);
        } catch (err) {
          errors.push(
            fieldErrors.invalid(
              `${at}.schema.openAPIV3Schema`,
              '',
              `error building validator: ${(err as Error).message}`,
            ),
          );
        }
      }
    }
    const scale = isRecord(v.subresources) ? v.subresources.scale : undefined;
    if (scale !== undefined) errors.push(...validateScale(scale, `${at}.subresources.scale`));
    (Array.isArray(v.additionalPrinterColumns) ? v.additionalPrinterColumns : []).forEach((c, j) =>
      errors.push(...validateColumn(c, `${at}.additionalPrinterColumns[${j}]`)),
    );
    const selectable = Array.isArray(v.selectableFields) ? v.selectableFields : [];
    const paths = new Set<string>();
    selectable.forEach((f, j) => {
      const p = `${at}.selectableFields[${j}].jsonPath`;
      const jsonPath = isRecord(f) ? f.jsonPath : undefined;
      if (!jsonPath) errors.push(fieldErrors.required(p));
      else if (typeof jsonPath !== 'string' || !/^(\.[A-Za-z0-9_-]+)+$/.test(jsonPath))
        errors.push(fieldErrors.invalid(p, jsonPath, 'is an invalid path'));
      else if (jsonPath.startsWith('.metadata'))
        errors.push(fieldErrors.invalid(p, jsonPath, 'must not point to fields in metadata'));
      else if (paths.has(jsonPath)) errors.push(fieldErrors.duplicate(p, jsonPath));
      if (typeof jsonPath === 'string') paths.add(jsonPath);
    });
  });
  if (!unique)
    errors.push(
      fieldErrors.invalid('spec.versions', versions, 'must contain unique version names'),
    );
  if (storage !== 1)
    errors.push(
      fieldErrors.invalid(
        'spec.versions',
        versions,
        'must have exactly one version marked as storage version',
      ),
    );
  for (const key of ['plural', 'singular', 'kind', 'listKind'] as const) {
    if (!names[key]) errors.push(fieldErrors.required(`spec.names.${key}`));
  }
  errors.push(...validateNames(names, 'spec.names'));
  const conversion = spec.conversion;
  if (conversion !== undefined) {
    const strategy = isRecord(conversion) ? conversion.strategy : undefined;
    if (strategy === 'Webhook')
      errors.push(
        fieldErrors.forbidden(
          'spec.conversion.strategy',
          'Webhook conversion is not supported by this server; use None (versions differ only in apiVersion)',
        ),
      );
    else if (strategy !== 'None')
      errors.push(
        fieldErrors.notSupported('spec.conversion.strategy', strategy, ['None', 'Webhook']),
      );
  }
  errors.push(...validateAPIApproval(crd, group));
  if (spec.preserveUnknownFields === true) {
    errors.push(fieldErrors.invalid('spec.preserveUnknownFields', true, 'must be false'));
  }
  return errors;
}

const APPROVAL = 'api-approved.kubernetes.io';

/**
 * validation.go validateAPIApproval: groups under k8s.io and kubernetes.io belong to Kubernetes,
 * and a CRD there must say where its API was approved (or that it is unapproved).
 */
function validateAPIApproval(crd: CustomResourceDefinition, group: string): FieldError[] {
  const protectedGroup =
    group === 'k8s.io' ||
    group.endsWith('.k8s.io') ||
    group === 'kubernetes.io' ||
    group.endsWith('.kubernetes.io');
  if (!protectedGroup) return [];
  const value = crd.metadata.annotations?.[APPROVAL];
  const field = `metadata.annotations[${APPROVAL}]`;
  if (value === undefined)
    return [
      fieldErrors.required(
        field,
        `protected groups must have approval annotation "${APPROVAL}", see https://github.com/kubernetes/enhancements/pull/1111`,
      ),
    ];
  if (value.startsWith('unapproved')) return [];
  try {
    const url = new URL(value);
    if (url.protocol === 'http:' || url.protocol === 'https:') return [];
  } catch {
    // not a URL: refused below
  }
  return [
    fieldErrors.invalid(
      field,
      value,
      'protected groups must have approval annotation "api-approved.kubernetes.io" with either a URL or a reason starting with "unapproved", see https://github.com/kubernetes/enhancements/pull/1111',
    ),
  ];
}

function validateScale(scale: unknown, path: string): FieldError[] {
  if (!isRecord(scale)) return [fieldErrors.invalid(path, scale, 'must be an object')];
  const errors: FieldError[] = [];
  for (const key of ['specReplicasPath', 'statusReplicasPath'] as const) {
    const value = scale[key];
    if (!value) errors.push(fieldErrors.required(`${path}.${key}`));
    else if (typeof value !== 'string' || !/^(\.[A-Za-z0-9_-]+)+$/.test(value))
      errors.push(
        fieldErrors.invalid(
          `${path}.${key}`,
          value,
          'should be a json path under either .spec or .status',
        ),
      );
    else if (key === 'specReplicasPath' && !value.startsWith('.spec.'))
      errors.push(
        fieldErrors.invalid(`${path}.${key}`, value, 'should be a json path under .spec'),
      );
    else if (key === 'statusReplicasPath' && !value.startsWith('.status.'))
      errors.push(
        fieldErrors.invalid(`${path}.${key}`, value, 'should be a json path under .status'),
      );
  }
  const selector = scale['labelSelectorPath'];
  if (
    selector !== undefined &&
    (typeof selector !== 'string' || !/^\.(spec|status)(\.[A-Za-z0-9_-]+)+$/.test(selector))
  )
    errors.push(
      fieldErrors.invalid(
        `${path}.labelSelectorPath`,
        selector,
        'should be a json path under either .spec or .status',
      ),
    );
  return errors;
}

function validateColumn(column: unknown, path: string): FieldError[] {
  if (!isRecord(column)) return [fieldErrors.invalid(path, column, 'must be an object')];
  const errors: FieldError[] = [];
  if (!column['name']) errors.push(fieldErrors.required(`${path}.name`));
  const type = column['type'];
  if (!type)
    errors.push(fieldErrors.required(`${path}.type`, `must be one of ${PRINTER_TYPES.join(',')}`));
  else if (typeof type !== 'string' || !PRINTER_TYPES.includes(type))
    errors.push(
      fieldErrors.invalid(`${path}.type`, type, `must be one of ${PRINTER_TYPES.join(',')}`),
    );
  const format = column['format'];
  if (
    format !== undefined &&
    format !== '' &&
    (typeof format !== 'string' || !PRINTER_FORMATS.includes(format))
  )
    errors.push(
      fieldErrors.invalid(`${path}.format`, format, `must be one of ${PRINTER_FORMATS.join(',')}`),
    );
  if (!column['jsonPath']) errors.push(fieldErrors.required(`${path}.JSONPath`));
  const priority = column['priority'];
  if (priority !== undefined && (!Number.isSafeInteger(priority) || (priority as number) < 0))
    errors.push(
      fieldErrors.invalid(`${path}.priority`, priority, 'must be a non-negative integer'),
    );
  return errors;
}

/**
 * ValidateCustomResourceDefinitionUpdate's additions: scope is immutable once established, and
 * the stored versions must stay in spec.versions.
 */
export function validateCustomResourceDefinitionUpdate(
  crd: CustomResourceDefinition,
  old: CustomResourceDefinition,
): FieldError[] {
  const errors = validateCustomResourceDefinition(crd);
  if (
    old.spec.scope !== crd.spec?.scope &&
    (old.status?.conditions ?? []).some((c) => c.type === 'Established' && c.status === 'True')
  )
    errors.push(fieldErrors.invalid('spec.scope', crd.spec?.scope, 'field is immutable'));
  if (old.spec.group !== crd.spec?.group)
    errors.push(fieldErrors.invalid('spec.group', crd.spec?.group, 'field is immutable'));
  const versions = Array.isArray(crd.spec?.versions) ? crd.spec.versions : [];
  (old.status?.storedVersions ?? []).forEach((v, i) => {
    if (!versions.some((x) => isRecord(x) && x.name === v))
      errors.push(
        fieldErrors.invalid(
          `status.storedVersions[${i}]`,
          v,
          `missing from spec.versions; ${v} was previously a storage version, and must remain in spec.versions until a storage migration ensures no data remains persisted in ${v} and removes ${v} from status.storedVersions`,
        ),
      );
  });
  return errors;
}
