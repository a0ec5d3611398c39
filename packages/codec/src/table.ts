import {
  ApiError,
  fieldErrorMessage,
  fieldErrors,
  type KubeList,
  type KubeObject,
  type ListMeta,
  type ResourceDefinition,
  type Status,
  type TableColumn,
  type WatchEvent,
} from '@listwatch/api';
import {
  asPartialObjectMetadata,
  isKubeList,
  listMetaOf,
  type MetaApiVersion,
  type MetaVersion,
  type PartialObjectMetadata,
} from './partial-object-metadata.js';

/** What a row carries besides its cells (metav1.IncludeObjectPolicy); Metadata by default. */
export type IncludeObjectPolicy = 'None' | 'Metadata' | 'Object';

export type TableCell = string | number | boolean | null;

/** metav1.TableColumnDefinition (field order as Kubernetes writes it). */
export interface TableColumnDefinition {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
}

/** metav1.TableRow: `object` is null with includeObject=None, as Kubernetes writes it. */
export interface TableRow {
  cells: TableCell[];
  object: PartialObjectMetadata | KubeObject | null;
}

/**
 * metav1.Table, what kubectl asks for by default. `columnDefinitions` is null on watch events
 * after the first, as kube-apiserver sends them (the Go field has no omitempty).
 */
export interface Table {
  kind: 'Table';
  apiVersion: MetaApiVersion;
  metadata: ListMeta;
  columnDefinitions: TableColumnDefinition[] | null;
  rows: TableRow[];
}

export type TableWatchEvent =
  | { type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK'; object: Table }
  | { type: 'ERROR'; object: Status };

/** The part of a ResourceDefinition a table needs. */
export type TableSource<T extends KubeObject = KubeObject> = Pick<
  ResourceDefinition<T>,
  'tableColumns'
>;

export interface TableOptions {
  includeObject?: IncludeObjectPolicy;
  /** Omit column definitions (every watch event after the first). */
  noHeaders?: boolean;
  /** The clock for age cells, in ms since the epoch (default: now). */
  now?: number;
  version?: MetaVersion;
}

/** Reads the `includeObject` query parameter; anything else is a 400 (meta/v1beta1 validation). */
export function parseIncludeObject(value: string | null | undefined): IncludeObjectPolicy {
  if (value === undefined || value === null || value === '') return 'Metadata';
  if (value === 'None' || value === 'Metadata' || value === 'Object') return value;
  const error = fieldErrors.invalid(
    'includeObject',
    value,
    "must be 'Metadata', 'Object', 'None', or empty",
  );
  throw ApiError.badRequest(`Unable to convert to Table as requested: ${fieldErrorMessage(error)}`);
}

/** The server sends every column with its priority; clients hide priority > 0 unless wide. */
export function tableColumnDefinitions<T extends KubeObject>(
  def: TableSource<T>,
): TableColumnDefinition[] {
  return def.tableColumns.map((column: TableColumn<T>) => ({
    name: column.name,
    type: column.type,
    format: column.format ?? '',
    description: column.description,
    priority: column.priority,
  }));
}

export function tableRow<T extends KubeObject>(
  def: TableSource<T>,
  object: T,
  options: TableOptions = {},
): TableRow {
  const now = options.now ?? Date.now();
  return {
    cells: def.tableColumns.map((column) => column.cell(object, now)),
    object: rowObject(object, options.includeObject ?? 'Metadata', options.version ?? 'v1'),
  };
}

function rowObject(
  object: KubeObject,
  include: IncludeObjectPolicy,
  version: MetaVersion,
): TableRow['object'] {
  switch (include) {
    case 'None':
      return null;
    case 'Object':
      return object;
    default:
      return asPartialObjectMetadata(object, version);
  }
}

function table(
  columns: TableColumnDefinition[] | null,
  metadata: ListMeta,
  rows: TableRow[],
  version: MetaVersion,
): Table {
  return {
    kind: 'Table',
    apiVersion: `meta.k8s.io/${version}`,
    metadata,
    columnDefinitions: columns,
    rows,
  };
}

/** One object as a one-row Table carrying the object's resourceVersion. */
export function objectToTable<T extends KubeObject>(
  def: TableSource<T>,
  object: T,
  options: TableOptions = {},
): Table {
  const rv = object.metadata.resourceVersion;
  return table(
    options.noHeaders ? null : tableColumnDefinitions(def),
    rv !== undefined ? { resourceVersion: rv } : {},
    [tableRow(def, object, options)],
    options.version ?? 'v1',
  );
}

/** A list as a Table keeping its resourceVersion, continue token and remainingItemCount. */
export function listToTable<T extends KubeObject>(
  def: TableSource<T>,
  list: KubeList<T>,
  options: TableOptions = {},
): Table {
  const now = options.now ?? Date.now();
  const rowOptions = { ...options, now };
  return table(
    options.noHeaders ? null : tableColumnDefinitions(def),
    listMetaOf(list.metadata),
    list.items.map((item) => tableRow(def, item, rowOptions)),
    options.version ?? 'v1',
  );
}

export function toTable<T extends KubeObject>(
  def: TableSource<T>,
  value: T | KubeList<T>,
  options: TableOptions = {},
): Table {
  return isKubeList(value) ? listToTable(def, value, options) : objectToTable(def, value, options);
}

/**
 * A watch event in Table form (apiserver handlers/response.go doTransformObject): ERROR events
 * keep their Status; a BOOKMARK becomes a Table without rows carrying the bookmark's
 * resourceVersion (its object is an empty shell, not something to print).
 */
export function tableWatchEvent<T extends KubeObject>(
  def: TableSource<T>,
  event: WatchEvent<T>,
  options: TableOptions = {},
): TableWatchEvent {
  if (event.type === 'ERROR') return event;
  if (event.type === 'BOOKMARK') {
    const rv = event.object.metadata.resourceVersion;
    const columns = options.noHeaders ? null : tableColumnDefinitions(def);
    return {
      type: 'BOOKMARK',
      object: table(
        columns,
        rv !== undefined ? { resourceVersion: rv } : {},
        [],
        options.version ?? 'v1',
      ),
    };
  }
  return { type: event.type, object: objectToTable(def, event.object, options) };
}

/**
 * Client-side column filtering, as kubectl's printer does it: priority > 0 columns (and their
 * cells) only with `wide`. Watch events after the first carry no column definitions: pass the
 * ones from the first event as `columns`.
 */
export function filterTableColumns(
  value: Table,
  options: { wide?: boolean; columns?: readonly TableColumnDefinition[] | null } = {},
): Table {
  const columns = value.columnDefinitions ?? options.columns;
  if (options.wide || !columns) return value;
  const keep = columns.map((column) => column.priority === 0);
  if (keep.every(Boolean)) return value;
  return {
    ...value,
    columnDefinitions: value.columnDefinitions ? columns.filter((_, i) => keep[i]) : null,
    rows: value.rows.map((row) => ({ ...row, cells: row.cells.filter((_, i) => keep[i]) })),
  };
}
