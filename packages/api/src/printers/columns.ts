import { ageSince } from '../human-duration.js';
import { labelSelectorFromMetaV1 } from '../meta-label-selector.js';
import type { KubeObject } from '../object-meta.js';
import type { TableColumn } from '../resource-definition.js';
import { fieldAtPath } from '../schema.js';
import { nestedField as at } from '../unstructured.js';

// What the Table printers of every group share (kubernetes pkg/printers/internalversion/
// printers.go): reading a cell from an object, the columns every Table has, and the cells several
// groups print alike. Column descriptions come from the schema source as kube's come from the Go
// types' SwaggerDoc, so this module loads generated/schemas.ts.

export function text(object: unknown, path: string, fallback = '<none>'): string {
  const value = at(object, path);
  if (value === undefined || value === null || value === '') return fallback;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

export function array(object: unknown, path: string): unknown[] {
  const value = at(object, path);
  return Array.isArray(value) ? value : [];
}

export function int(object: unknown, path: string): number {
  const value = at(object, path);
  return typeof value === 'number' ? value : 0;
}

/**
 * The documentation of the field at `path` below a type of the schema source (`batch.v1.CronJob`,
 * `spec.schedule`), as kube's printers take a column's description from the Go type
 * (printers.go: `batchv1.CronJobSpec{}.SwaggerDoc()["schedule"]`).
 */
export function fieldDoc(type: string, path: string): string {
  const description = fieldAtPath(`io.k8s.api.${type}`, path)?.description;
  if (description === undefined) throw new Error(`the schema source has no ${type} ${path}`);
  return description;
}

/** The Name column every Table starts with (kube's printers and default table convertor). */
export const NAME_COLUMN: TableColumn = {
  name: 'Name',
  type: 'string',
  format: 'name',
  description:
    'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically.',
  priority: 0,
  cell: (o) => o.metadata.name ?? '',
};

/** The Age column (kube's printers: translateTimestampSince of creationTimestamp). */
export const AGE_COLUMN: TableColumn = {
  name: 'Age',
  type: 'string',
  description:
    'CreationTimestamp is a timestamp representing the server time when this object was created.',
  priority: 0,
  cell: (o, now) => ageSince(o.metadata.creationTimestamp, now),
};

export function column(
  name: string,
  description: string,
  cell: TableColumn['cell'],
  options: { priority?: number; type?: TableColumn['type'] } = {},
): TableColumn {
  return {
    name,
    type: options.type ?? 'string',
    description,
    priority: options.priority ?? 0,
    cell,
  };
}

/** A column kubectl shows only with `-o wide` (priority 1). */
export function wide(name: string, description: string, cell: TableColumn['cell']): TableColumn {
  return column(name, description, cell, { priority: 1 });
}

/** An integer column read from a path of the object (replica counts and the like). */
export function intColumn(name: string, description: string, path: string): TableColumn {
  return column(name, description, (o) => int(o, path), { type: 'integer' });
}

/** The text at `path` of an object of `type`, described by that field's documentation. */
export function fieldText(
  name: string,
  type: string,
  path: string,
  fallback?: string,
  options?: { priority?: number },
): TableColumn {
  return column(name, fieldDoc(type, path), (o) => text(o, path, fallback), options);
}

/** The integer at `path` of an object of `type`, described by that field's documentation. */
export function intField(name: string, type: string, path: string): TableColumn {
  return intColumn(name, fieldDoc(type, path), path);
}

export function labelsText(value: unknown): string {
  if (!value || typeof value !== 'object') return '<none>';
  const entries = Object.entries(value as Record<string, string>);
  return entries.length ? entries.map(([k, v]) => `${k}=${v}`).join(',') : '<none>';
}

/** Name, Desired, Current, Ready and Age of a ReplicaSet or RC, from its schema (printers.go). */
export function replicaCountColumns(type: string): TableColumn[] {
  return [
    NAME_COLUMN,
    intField('Desired', type, 'spec.replicas'),
    intField('Current', type, 'status.replicas'),
    intField('Ready', type, 'status.readyReplicas'),
    AGE_COLUMN,
  ];
}

export const CREATED_AT: TableColumn = {
  name: 'Created At',
  type: 'date',
  description:
    'CreationTimestamp is a timestamp representing the server time when this object was created.',
  priority: 0,
  cell: (o) => o.metadata.creationTimestamp ?? '',
};

/** metav1.FormatLabelSelector: `<none>` for an empty selector, `<error>` for an invalid one. */
export function selectorText(value: unknown): string {
  if (!value || typeof value !== 'object') return '<none>';
  try {
    return labelSelectorFromMetaV1(value).toString() || '<none>';
  } catch {
    return '<error>';
  }
}

export const TEMPLATE_CONTAINERS = 'spec.template.spec.containers';

/** layoutContainerCells: the containers' names and images, comma-separated. */
export function containerCells(path: string, priority = 1): TableColumn[] {
  const containers = (o: KubeObject) => array(o, path) as { name?: string; image?: string }[];
  return [
    column(
      'Containers',
      'Names of each container in the template.',
      (o) =>
        containers(o)
          .map((c) => c.name ?? '')
          .join(','),
      { priority },
    ),
    column(
      'Images',
      'Images referenced by each container in the template.',
      (o) =>
        containers(o)
          .map((c) => c.image ?? '')
          .join(','),
      { priority },
    ),
  ];
}

/** A column named Selector, its description as kube's (the field's doc). */
export function selector(description: string, cell: TableColumn['cell']): TableColumn {
  return wide('Selector', description, cell);
}

/** The first `max` items, then kube printers' `+ N more...`. */
export function abbreviated(items: string[], max: number, separator: string): string {
  const joined = items.slice(0, max).join(separator);
  return items.length > max ? `${joined} + ${items.length - max} more...` : joined;
}
