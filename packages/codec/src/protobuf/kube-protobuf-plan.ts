import type { SourceField, SourceType } from '@listwatch/api';
import { schemaFor, schemaType } from './schema-source.js';

// The shape of application/vnd.kubernetes.protobuf (see kube-protobuf.ts): the envelope's type
// names and magic, and each type's fields compiled once from @listwatch/api's schema source,
// which kube-protobuf-encode.ts and kube-protobuf-decode.ts both walk.

export const PROTOBUF_MEDIA_TYPE = 'application/vnd.kubernetes.protobuf';
/** The Content-Type of a protobuf watch: length-prefixed WatchEvent messages. */
export const PROTOBUF_WATCH_MEDIA_TYPE = 'application/vnd.kubernetes.protobuf;stream=watch';

/** `k8s\0`, what every protobuf object starts with (protobuf.go protoEncodingPrefix). */
export const PROTOBUF_MAGIC: Uint8Array = Uint8Array.of(0x6b, 0x38, 0x73, 0x00);

export const UNKNOWN = 'io.k8s.apimachinery.pkg.runtime.Unknown';
export const RUNTIME_TYPE_META = 'io.k8s.apimachinery.pkg.runtime.TypeMeta';
export const WATCH_EVENT = 'io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent';
export const RAW_EXTENSION = 'io.k8s.apimachinery.pkg.runtime.RawExtension';
export const MICRO_TIME = 'io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime';

export type Json = Record<string, unknown>;

// --- plans: each type's fields, compiled once from the source ---------------------------------

export type Element =
  { kind: 'scalar'; scalar: string } | { kind: 'message'; name: string; type: SourceType };

export interface FieldPlan {
  readonly field: SourceField;
  readonly repeated: boolean;
  readonly map: boolean;
  readonly element: Element;
}

export interface Plan {
  readonly name: string;
  readonly type: SourceType;
  /** By field number: the order Go writes them in. */
  readonly byNumber: readonly FieldPlan[];
  readonly numbers: ReadonlyMap<number, FieldPlan>;
  /** In declaration order: the order encoding/json writes them in. */
  readonly declared: readonly FieldPlan[];
}

const plans = new Map<string, Plan>();

export function lookup(name: string): SourceType {
  const type = schemaType(name);
  if (!type) throw new Error(`schema source: no type ${name}`);
  return type;
}

function elementOf(type: string): Element {
  if (type.includes('.')) return { kind: 'message', name: type, type: lookup(type) };
  return { kind: 'scalar', scalar: type };
}

export function planOf(name: string): Plan {
  let plan = plans.get(name);
  if (!plan) {
    const type = lookup(name);
    const declared = type.fields.map((field): FieldPlan => {
      const repeated = field.type.startsWith('[]');
      const map = field.type.startsWith('map[string]');
      const inner = repeated ? field.type.slice(2) : map ? field.type.slice(11) : field.type;
      return { field, repeated, map, element: elementOf(inner) };
    });
    const byNumber = [...declared].sort((a, b) => a.field.number - b.field.number);
    plan = {
      name,
      type,
      byNumber,
      numbers: new Map(byNumber.map((f) => [f.field.number, f])),
      declared,
    };
    plans.set(name, plan);
  }
  return plan;
}

export function numberOf(typeName: string, field: string): number {
  const found = lookup(typeName).fields.find((f) => f.name === field);
  if (!found) throw new Error(`schema source: ${typeName} has no field ${field}`);
  return found.number;
}
/** The zero value of each scalar, which Go writes for a non-pointer field left unset. */
export const ZERO: Readonly<Record<string, unknown>> = {
  string: '',
  bool: false,
  int32: 0,
  int64: 0,
  double: 0,
  float: 0,
};

function gvkOf(apiVersion: string, kind: string) {
  const slash = apiVersion.indexOf('/');
  return {
    group: slash < 0 ? '' : apiVersion.slice(0, slash),
    version: slash < 0 ? apiVersion : apiVersion.slice(slash + 1),
    kind,
  };
}

/** The source type of a kind served in protobuf, or undefined (custom resources, Tables...). */
export function protobufTypeOf(apiVersion: unknown, kind: unknown): string | undefined {
  if (typeof apiVersion !== 'string' || typeof kind !== 'string') return undefined;
  return schemaFor(gvkOf(apiVersion, kind))?.name;
}

export function hasMagic(bytes: Uint8Array): boolean {
  return PROTOBUF_MAGIC.every((b, i) => bytes[i] === b);
}
