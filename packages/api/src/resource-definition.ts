import type { NameRule } from './names.js';
import type { KubeObject } from './object-meta.js';

/** One column of a server-side Table (metav1.TableColumnDefinition) and how to fill it. */
export interface TableColumn<T extends KubeObject = KubeObject> {
  name: string;
  type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  format?: string;
  description: string;
  /** 0: always shown; 1: only with `-o wide`. */
  priority: number;
  /** The cell for one object; `now` lets age columns say "5m". */
  cell(object: T, now: number): string | number | boolean | null;
}

/** Reads one field-selector field (e.g. `spec.nodeName`) from an object, as a string. */
export type FieldGetter<T extends KubeObject = KubeObject> = (object: T) => string;

/** Names a secondary index over the objects of a resource (e.g. pods by `spec.nodeName`). */
export type IndexGetter<T extends KubeObject = KubeObject> = (object: T) => string[];

export type Verb =
  'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection';

/**
 * Everything the server, the storage and the client need to know about one resource,
 * as data: adding a resource is adding a definition.
 */
export interface ResourceDefinition<T extends KubeObject = KubeObject> {
  /** `''` for the core (legacy) group. */
  group: string;
  version: string;
  kind: string;
  listKind: string;
  /** The URL and storage segment: `pods`. */
  plural: string;
  singular: string;
  shortNames: readonly string[];
  categories: readonly string[];
  namespaced: boolean;
  verbs: readonly Verb[];
  /** How object names are validated (namespaces: DNS labels; services: DNS-1035 labels). */
  nameRule: NameRule;
  /** Subresources served (`status`, `binding`). */
  subresources: readonly string[];
  /**
   * Fields a field selector may name, besides `metadata.name` and `metadata.namespace` (which
   * every resource has). An unknown field is a 400 `field label not supported`.
   */
  selectableFields: Readonly<Record<string, FieldGetter<T>>>;
  /** Secondary indexes the watch cache keeps, keyed by the field they index. */
  indexes: Readonly<Record<string, IndexGetter<T>>>;
  /** Server-side Table columns; NAME and AGE come first and are included here. */
  tableColumns: readonly TableColumn<T>[];
  /**
   * The path under the storage prefix when it is not the plural: kube keeps custom resources and
   * CRDs under `<group>/<plural>` (apiextensions-apiserver customresource_handler.go).
   */
  storageResource?: string;
  /**
   * The OpenAPI v3 schema of a kind the schema source lacks (a custom resource's version, from
   * its CRD's `openAPIV3Schema`), published in /openapi/v2 and /openapi/v3.
   */
  openAPISchema?: Readonly<Record<string, unknown>>;
  /** Sent as a `Warning` with every request to a deprecated version (a CRD's deprecated one). */
  deprecationWarning?: string;
}

/** `apiVersion` as objects of this resource carry it: `v1` or `apps/v1`. */
export function apiVersionOf(def: Pick<ResourceDefinition, 'group' | 'version'>): string {
  return def.group ? `${def.group}/${def.version}` : def.version;
}

/** `pods` or `deployments.apps`: how Status messages name a resource. */
export function groupResourceOf(def: Pick<ResourceDefinition, 'group' | 'plural'>): {
  group: string;
  resource: string;
} {
  return { group: def.group, resource: def.plural };
}
