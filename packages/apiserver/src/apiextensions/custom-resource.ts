import {
  ageSince,
  ALL_VERBS,
  isRecord,
  NAME_COLUMN,
  type FieldGetter,
  type ResourceDefinition,
  type TableColumn,
} from '@listwatch/api';
import { compareVersionPriority, sortByVersionPriority } from '../discovery/version-priority.js';
import { parseSimplePath, valueAt } from './jsonpath.js';
import {
  type CustomResourceColumnDefinition,
  type CustomResourceDefinition,
  type CustomResourceDefinitionVersion,
} from './types.js';

// What one served version of a CRD is as a resource: kube's crdHandler builds this per request
// from the CRD (apiextensions-apiserver pkg/apiserver/customresource_handler.go getOrCreateServingInfoFor),
// with the table convertor of pkg/registry/customresource/tableconvertor and the accepted names.

/** customresource_handler.go serveDefaultColumnsIfEmpty: Age, when a version declares none. */
const DEFAULT_COLUMNS: CustomResourceColumnDefinition[] = [
  {
    name: 'Age',
    type: 'date',
    jsonPath: '.metadata.creationTimestamp',
    description:
      'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata',
  },
];

/** tableconvertor.go cellForJSONValue, and the string printer for `string` columns. */
function cellOf(type: string, value: unknown, now: number): string | number | boolean | null {
  if (value === undefined || value === null) return null;
  switch (type) {
    case 'string':
      return typeof value === 'string' ? value : JSON.stringify(value);
    case 'integer':
      return typeof value === 'number' ? Math.trunc(value) : null;
    case 'number':
      return typeof value === 'number' ? value : null;
    case 'boolean':
      return typeof value === 'boolean' ? value : null;
    case 'date':
      if (typeof value !== 'string') return null;
      return Number.isNaN(Date.parse(value)) ? '<invalid>' : ageSince(value, now);
  }
  return null;
}

function printerColumn(column: CustomResourceColumnDefinition): TableColumn {
  const steps = parseSimplePath(column.jsonPath);
  return {
    name: column.name,
    type: column.type as TableColumn['type'],
    ...(column.format ? { format: column.format } : {}),
    description:
      column.description ||
      `Custom resource definition column (in JSONPath format): ${column.jsonPath}`,
    priority: column.priority ?? 0,
    cell: (object, now) => (steps ? cellOf(column.type, valueAt(object, steps), now) : null),
  };
}

/** A selectable field as field selectors read it: strings as they are, others as text. */
function selectableField(jsonPath: string): FieldGetter {
  const steps = parseSimplePath(jsonPath) ?? [];
  return (object) => {
    const value = valueAt(object, steps);
    if (typeof value === 'string') return value;
    if (typeof value === 'number' || typeof value === 'boolean') return String(value);
    return '';
  };
}

/** The version's schema as OpenAPI publishes a custom kind (pkg/controller/openapi/builder). */
function publishedSchema(
  crd: CustomResourceDefinition,
  version: CustomResourceDefinitionVersion,
  kind: string,
): Record<string, unknown> {
  const schema = isRecord(version.schema?.openAPIV3Schema) ? version.schema.openAPIV3Schema : {};
  const properties = isRecord(schema['properties']) ? schema['properties'] : {};
  return {
    ...schema,
    type: 'object',
    properties: {
      ...properties,
      apiVersion: {
        description:
          'APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources',
        type: 'string',
      },
      kind: {
        description:
          'Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds',
        type: 'string',
      },
      metadata: {
        description:
          "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata",
        allOf: [{ $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' }],
      },
    },
    'x-kubernetes-group-version-kind': [{ group: crd.spec.group, kind, version: version.name }],
  };
}

/**
 * customresource_handler.go defaultDeprecationWarning: the version's own text, or which served,
 * undeprecated version of highest priority to use instead.
 */
function deprecationWarning(
  crd: CustomResourceDefinition,
  version: CustomResourceDefinitionVersion,
  kind: string,
): string {
  if (version.deprecationWarning) return version.deprecationWarning;
  const message = `${crd.spec.group}/${version.name} ${kind} is deprecated`;
  const better = sortByVersionPriority(
    crd.spec.versions.filter((v) => v.served && !v.deprecated).map((v) => v.name),
  ).find((v) => compareVersionPriority(v, version.name) > 0);
  return better ? `${message}; use ${crd.spec.group}/${better} ${kind}` : message;
}

/** The resource one served version of an accepted CRD is. */
export function customResourceOf(
  crd: CustomResourceDefinition,
  version: CustomResourceDefinitionVersion,
): ResourceDefinition {
  const names = crd.status?.acceptedNames ?? crd.spec.names;
  const kind = names.kind ?? '';
  const subresources = [
    ...(version.subresources?.status ? ['status'] : []),
    ...(version.subresources?.scale ? ['scale'] : []),
  ];
  const columns = version.additionalPrinterColumns?.length
    ? version.additionalPrinterColumns
    : DEFAULT_COLUMNS;
  return {
    group: crd.spec.group,
    version: version.name,
    kind,
    listKind: names.listKind ?? `${kind}List`,
    plural: names.plural ?? '',
    singular: names.singular ?? kind.toLowerCase(),
    shortNames: names.shortNames ?? [],
    categories: names.categories ?? [],
    namespaced: crd.spec.scope === 'Namespaced',
    verbs: ALL_VERBS,
    nameRule: 'dns1123Subdomain',
    subresources,
    selectableFields: Object.fromEntries(
      (version.selectableFields ?? []).map((f) => [
        f.jsonPath.slice(1),
        selectableField(f.jsonPath),
      ]),
    ),
    indexes: {},
    tableColumns: [NAME_COLUMN, ...columns.map(printerColumn)],
    storageResource: `${crd.spec.group}/${names.plural ?? ''}`,
    ...(version.deprecated ? { deprecationWarning: deprecationWarning(crd, version, kind) } : {}),
    openAPISchema: publishedSchema(crd, version, kind),
  };
}
