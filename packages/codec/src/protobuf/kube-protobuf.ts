import {
  formatDurationNanos,
  isRecord,
  parseDurationNanos,
  schemaFor,
  schemaType,
  type KubeObject,
  type SourceField,
  type SourceType,
  type WatchEvent,
} from '@listwatch/api';
import { CodecError } from '../codec-error.js';
import { toWatchEvent } from '../watch-event.js';
import { readFields, readVarint, WireWriter, type WireField } from './wire.js';

// application/vnd.kubernetes.protobuf for every kind of the schema source (@listwatch/api's
// generated/schemas.ts, from upstream generated.proto): field numbers and types come from there,
// none is typed here. Go's gogo-generated marshallers are followed byte for byte: fields in
// number order, every non-pointer field written even when zero, pointers only when set, map
// entries sorted by key. A decoded message reads as encoding/json would write the Go struct:
// omitempty zeros left out, pointers kept (`replicas: 0`), zero non-pointer Times as null.
// The envelope is apimachinery runtime/serializer/protobuf/protobuf.go's: the `k8s\0` magic
// and a runtime.Unknown (typeMeta, raw = the object's message, contentEncoding, contentType).
// Watch streams (`;stream=watch`) carry metav1.WatchEvent messages, each the object's own
// enveloped bytes as a RawExtension (apiserver handlers/watch.go: the embedded encoder).

export const PROTOBUF_MEDIA_TYPE = 'application/vnd.kubernetes.protobuf';
/** The Content-Type of a protobuf watch: length-prefixed WatchEvent messages. */
export const PROTOBUF_WATCH_MEDIA_TYPE = 'application/vnd.kubernetes.protobuf;stream=watch';

/** `k8s\0`, what every protobuf object starts with (protobuf.go protoEncodingPrefix). */
export const PROTOBUF_MAGIC: Uint8Array = Uint8Array.of(0x6b, 0x38, 0x73, 0x00);

const UNKNOWN = 'io.k8s.apimachinery.pkg.runtime.Unknown';
const RUNTIME_TYPE_META = 'io.k8s.apimachinery.pkg.runtime.TypeMeta';
const WATCH_EVENT = 'io.k8s.apimachinery.pkg.apis.meta.v1.WatchEvent';
const RAW_EXTENSION = 'io.k8s.apimachinery.pkg.runtime.RawExtension';
const MICRO_TIME = 'io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime';

type Json = Record<string, unknown>;

// --- plans: each type's fields, compiled once from the source ---------------------------------

type Element =
  { kind: 'scalar'; scalar: string } | { kind: 'message'; name: string; type: SourceType };

interface FieldPlan {
  readonly field: SourceField;
  readonly repeated: boolean;
  readonly map: boolean;
  readonly element: Element;
}

interface Plan {
  readonly name: string;
  readonly type: SourceType;
  /** By field number: the order Go writes them in. */
  readonly byNumber: readonly FieldPlan[];
  readonly numbers: ReadonlyMap<number, FieldPlan>;
  /** In declaration order: the order encoding/json writes them in. */
  readonly declared: readonly FieldPlan[];
}

const plans = new Map<string, Plan>();

function lookup(name: string): SourceType {
  const type = schemaType(name);
  if (!type) throw new Error(`schema source: no type ${name}`);
  return type;
}

function elementOf(type: string): Element {
  if (type.includes('.')) return { kind: 'message', name: type, type: lookup(type) };
  return { kind: 'scalar', scalar: type };
}

function planOf(name: string): Plan {
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

function numberOf(typeName: string, field: string): number {
  const found = lookup(typeName).fields.find((f) => f.name === field);
  if (!found) throw new Error(`schema source: ${typeName} has no field ${field}`);
  return found.number;
}

// --- encoding ----------------------------------------------------------------------------------

const utf8 = new TextEncoder();

class EncodeError extends Error {}

function encodeFailure(path: string, what: string): EncodeError {
  return new EncodeError(`cannot encode ${path} in protobuf: ${what}`);
}

function writeScalar(
  w: WireWriter,
  number: number,
  scalar: string,
  value: unknown,
  path: string,
): void {
  switch (scalar) {
    case 'string':
      if (typeof value !== 'string') throw encodeFailure(path, 'not a string');
      w.bytes(number, utf8.encode(value));
      return;
    case 'bool':
      if (typeof value !== 'boolean') throw encodeFailure(path, 'not a boolean');
      w.tag(number, 0);
      w.uint32(value ? 1 : 0);
      return;
    case 'int32':
    case 'int64': {
      if (typeof value !== 'number' || !Number.isInteger(value))
        throw encodeFailure(path, 'not an integer');
      w.tag(number, 0);
      w.int64(scalar === 'int32' ? value | 0 : value);
      return;
    }
    case 'double':
    case 'float':
      if (typeof value !== 'number') throw encodeFailure(path, 'not a number');
      if (scalar === 'double') w.fixed64(number, value);
      else w.fixed32(number, value);
      return;
    case 'bytes':
      if (value instanceof Uint8Array) w.bytes(number, value);
      else if (typeof value === 'string') w.bytes(number, Buffer.from(value, 'base64'));
      else throw encodeFailure(path, 'not base64 bytes');
      return;
    default:
      throw encodeFailure(path, `unknown scalar ${scalar}`);
  }
}

const ZERO: Readonly<Record<string, unknown>> = {
  string: '',
  bool: false,
  int32: 0,
  int64: 0,
  double: 0,
  float: 0,
};

function writeMessage(
  w: WireWriter,
  number: number,
  element: Element & { kind: 'message' },
  value: unknown,
  path: string,
): void {
  const inner = new WireWriter();
  encodeInto(inner, element.name, value, path);
  w.bytes(number, inner.finish());
}

function writeField(w: WireWriter, plan: FieldPlan, value: unknown, path: string): void {
  const { field, element } = plan;
  if (plan.repeated) {
    if (value === undefined || value === null) return;
    if (!Array.isArray(value)) throw encodeFailure(path, 'not a list');
    value.forEach((item: unknown, i) => {
      const at = `${path}[${i}]`;
      if (element.kind === 'message') writeMessage(w, field.number, element, item, at);
      else writeScalar(w, field.number, element.scalar, item ?? ZERO[element.scalar], at);
    });
    return;
  }
  if (plan.map) {
    if (value === undefined || value === null) return;
    if (!isRecord(value)) throw encodeFailure(path, 'not an object');
    // Go sorts the keys (sortkeys.Strings: byte order, which UTF-8 Buffers compare in).
    const keys = Object.keys(value)
      .map((k) => [k, Buffer.from(k, 'utf8')] as const)
      .sort(([, a], [, b]) => Buffer.compare(a, b));
    for (const [key, keyBytes] of keys) {
      const entry = new WireWriter();
      entry.bytes(1, keyBytes);
      const item = value[key];
      const at = `${path}.${key}`;
      if (element.kind === 'message') writeMessage(entry, 2, element, item, at);
      else if (item !== null && item !== undefined) writeScalar(entry, 2, element.scalar, item, at);
      else if (element.scalar !== 'bytes')
        writeScalar(entry, 2, element.scalar, ZERO[element.scalar], at);
      w.bytes(field.number, entry.finish());
    }
    return;
  }
  const absent = value === undefined || value === null;
  if (element.kind === 'message') {
    if (absent && field.pointer) return;
    writeMessage(w, field.number, element, absent ? undefined : value, path);
    return;
  }
  if (absent) {
    // gogo writes []byte only when non-nil, every other non-pointer scalar always.
    if (field.pointer || element.scalar === 'bytes') return;
    writeScalar(w, field.number, element.scalar, ZERO[element.scalar], path);
    return;
  }
  writeScalar(w, field.number, element.scalar, value, path);
}

/** Appends the message of `typeName` for the JSON `value` (undefined: the zero value). */
function encodeInto(w: WireWriter, typeName: string, value: unknown, path: string): void {
  const plan = planOf(typeName);
  if (plan.type.json) {
    encodeSpecial(w, plan, value, path);
    return;
  }
  if (value !== undefined && !isRecord(value)) throw encodeFailure(path, 'not an object');
  const object = value ?? {};
  for (const field of plan.byNumber) {
    const name = field.field.name;
    // An embedded struct (json:",inline") reads its fields from the same JSON object.
    const inner = field.field.inline ? object : object[name];
    writeField(w, field, inner, `${path}.${name}`);
  }
}

const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:[Zz]|([+-])(\d{2}):(\d{2}))$/;

/** Seconds since the epoch and nanoseconds of an RFC 3339 time. */
function parseTime(text: string, path: string): { seconds: number; nanos: number } {
  const m = RFC3339.exec(text);
  if (!m) throw encodeFailure(path, `${JSON.stringify(text)} is not an RFC 3339 time`);
  const [, y, mo, d, h, mi, s, frac = '', sign, oh = '0', om = '0'] = m;
  const date = new Date(0);
  date.setUTCFullYear(Number(y), Number(mo) - 1, Number(d));
  date.setUTCHours(Number(h), Number(mi), Number(s), 0);
  const offset = sign ? (sign === '-' ? -1 : 1) * (Number(oh) * 3600 + Number(om) * 60) : 0;
  return {
    seconds: Math.floor(date.getTime() / 1000) - offset,
    nanos: Number(frac.slice(0, 9).padEnd(9, '0')),
  };
}

function encodeSpecial(w: WireWriter, plan: Plan, value: unknown, path: string): void {
  const n = (name: string) => numberOf(plan.name, name);
  switch (plan.type.json) {
    case 'date-time': {
      // metav1.Time and MicroTime write nothing when zero (time_proto.go, micro_time_proto.go).
      if (value === undefined || value === null) return;
      if (typeof value !== 'string') throw encodeFailure(path, 'not a time string');
      const { seconds, nanos } = parseTime(value, path);
      w.tag(n('seconds'), 0);
      w.int64(seconds);
      // Time keeps whole seconds only (ProtoTime leaves Nanos out); MicroTime keeps them.
      w.tag(n('nanos'), 0);
      w.int64(plan.name === MICRO_TIME ? Math.floor(nanos / 1000) * 1000 : 0);
      return;
    }
    case 'duration': {
      const nanos =
        value === undefined || value === null
          ? 0n
          : typeof value === 'string'
            ? parseDurationNanos(value)
            : null;
      if (nanos === null) throw encodeFailure(path, 'not a duration string');
      w.tag(n('duration'), 0);
      w.int64(nanos);
      return;
    }
    case 'quantity': {
      const text = value === undefined || value === null ? '0' : value;
      if (typeof text !== 'string' && typeof text !== 'number')
        throw encodeFailure(path, 'not a quantity');
      w.bytes(n('string'), utf8.encode(String(text)));
      return;
    }
    case 'int-or-string': {
      const isString = typeof value === 'string';
      if (value !== undefined && value !== null && !isString && !Number.isInteger(value))
        throw encodeFailure(path, 'neither an integer nor a string');
      w.tag(n('type'), 0);
      w.uint32(isString ? 1 : 0);
      w.tag(n('intVal'), 0);
      w.int64(isString ? 0 : ((value as number | undefined) ?? 0) | 0);
      w.bytes(n('strVal'), utf8.encode(isString ? value : ''));
      return;
    }
    case 'object': {
      // RawExtension, FieldsV1: the JSON itself as their raw bytes; nil writes nothing.
      const raw = plan.type.fields[0];
      if (!raw || value === undefined || value === null) return;
      w.bytes(raw.number, utf8.encode(JSON.stringify(value)));
      return;
    }
    case 'items': {
      const items = plan.declared[0];
      if (items) writeField(w, items, value, path);
      return;
    }
    case 'schema-or-bool':
    case 'schema-or-array':
    case 'schema-or-string-array':
      encodeSchemaOr(w, plan, value, path);
      return;
  }
}

/**
 * apiextensions.k8s.io/v1 JSONSchemaPropsOrBool {allows = 1, schema = 2}, OrArray {schema = 1,
 * jSONSchemas = 2} and OrStringArray {schema = 1, property = 2}, as gogo writes them: Allows
 * always, a schema when set, the list's items.
 */
function encodeSchemaOr(w: WireWriter, plan: Plan, value: unknown, path: string): void {
  const field = (name: string) => plan.declared.find((f) => f.field.name === name);
  const schema = field('schema');
  if (plan.type.json === 'schema-or-bool') {
    const allows = field('allows');
    if (allows) writeField(w, allows, isRecord(value) ? true : value === true, path);
    if (schema && isRecord(value)) writeField(w, schema, value, path);
    return;
  }
  if (isRecord(value)) {
    if (schema) writeField(w, schema, value, path);
    return;
  }
  const items = plan.declared.find((f) => f.repeated);
  if (items && Array.isArray(value)) writeField(w, items, value, path);
}

function encodeError(err: unknown): never {
  if (err instanceof EncodeError) throw new CodecError(err.message, 0);
  throw err;
}

/** The protobuf message of a type of the schema source for its JSON form (no envelope). */
export function encodeProtobufMessage(typeName: string, value: unknown): Uint8Array {
  const w = new WireWriter();
  try {
    encodeInto(w, typeName, value, typeName.slice(typeName.lastIndexOf('.') + 1));
  } catch (err) {
    encodeError(err);
  }
  return w.finish();
}

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

/** Whether an object's kind can be written in protobuf. */
export function canEncodeProtobuf(object: unknown): boolean {
  return isRecord(object) && protobufTypeOf(object['apiVersion'], object['kind']) !== undefined;
}

/** An object as kube-apiserver returns it in protobuf: the magic and a runtime.Unknown. */
export function encodeProtobuf(object: unknown): Uint8Array {
  if (!isRecord(object)) throw new CodecError('cannot encode a non-object in protobuf', 0);
  const { apiVersion, kind } = object;
  const type = protobufTypeOf(apiVersion, kind);
  if (!type) {
    throw new CodecError(`no protobuf encoding for ${String(kind)} of ${String(apiVersion)}`, 0);
  }
  const raw = encodeProtobufMessage(type, object);
  const w = new WireWriter(raw.length + 64);
  w.raw(PROTOBUF_MAGIC);
  const typeMeta = new WireWriter(64);
  typeMeta.bytes(numberOf(RUNTIME_TYPE_META, 'apiVersion'), utf8.encode(apiVersion as string));
  typeMeta.bytes(numberOf(RUNTIME_TYPE_META, 'kind'), utf8.encode(kind as string));
  w.bytes(numberOf(UNKNOWN, 'typeMeta'), typeMeta.finish());
  w.bytes(numberOf(UNKNOWN, 'raw'), raw);
  w.bytes(numberOf(UNKNOWN, 'contentEncoding'), new Uint8Array());
  w.bytes(numberOf(UNKNOWN, 'contentType'), new Uint8Array());
  return w.finish();
}

/**
 * One event of a protobuf watch, unframed: a metav1.WatchEvent whose object is the enveloped
 * object (`encoded` when the caller has it already, as for objects encoded once).
 */
export function encodeProtobufWatchEvent(
  event: { type: string; object: unknown },
  encoded?: Uint8Array,
): Uint8Array {
  const object = encoded ?? encodeProtobuf(event.object);
  const raw = new WireWriter(object.length + 8);
  raw.bytes(numberOf(RAW_EXTENSION, 'raw'), object);
  const w = new WireWriter(object.length + 32);
  w.bytes(numberOf(WATCH_EVENT, 'type'), utf8.encode(event.type));
  w.bytes(numberOf(WATCH_EVENT, 'object'), raw.finish());
  return w.finish();
}

// --- decoding ----------------------------------------------------------------------------------

const text = new TextDecoder('utf-8');

function wrongWire(path: string, at: number): CodecError {
  return new CodecError(`error decoding protobuf: ${path} has the wrong wire type`, at);
}

function scalarValue(scalar: string, f: WireField, path: string, at: number): unknown {
  switch (scalar) {
    case 'string':
      if (f.wireType !== 2) throw wrongWire(path, at);
      return text.decode(f.value);
    case 'bytes':
      if (f.wireType !== 2) throw wrongWire(path, at);
      return Buffer.from(f.value).toString('base64');
    case 'bool':
      if (f.wireType !== 0) throw wrongWire(path, at);
      return f.value !== 0n;
    case 'int32':
      if (f.wireType !== 0) throw wrongWire(path, at);
      return Number(BigInt.asIntN(32, f.value));
    case 'int64':
      if (f.wireType !== 0) throw wrongWire(path, at);
      return Number(BigInt.asIntN(64, f.value));
    case 'double':
      if (f.wireType !== 1) throw wrongWire(path, at);
      return new DataView(f.value.buffer, f.value.byteOffset, 8).getFloat64(0, true);
    case 'float':
      if (f.wireType !== 5) throw wrongWire(path, at);
      return new DataView(f.value.buffer, f.value.byteOffset, 4).getFloat32(0, true);
    default:
      throw new CodecError(`error decoding protobuf: ${path} has unknown type ${scalar}`, at);
  }
}

/** Packed repeated numbers (proto3 style): accepted as proto2 parsers do. */
function unpack(scalar: string, bytes: Uint8Array, path: string, at: number): unknown[] {
  const out: unknown[] = [];
  if (scalar === 'double' || scalar === 'float') {
    const size = scalar === 'double' ? 8 : 4;
    if (bytes.length % size) throw wrongWire(path, at);
    for (let i = 0; i < bytes.length; i += size) {
      const value = bytes.subarray(i, i + size);
      out.push(scalarValue(scalar, { field: 0, wireType: size === 8 ? 1 : 5, value }, path, at));
    }
    return out;
  }
  let offset = 0;
  while (offset < bytes.length) {
    const [value, next] = readVarint(bytes, offset);
    out.push(scalarValue(scalar, { field: 0, wireType: 0, value }, path, at + offset));
    offset = next;
  }
  return out;
}

function isZeroScalar(value: unknown): boolean {
  return value === '' || value === 0 || value === false;
}

function setKey(map: Json, key: string, value: unknown): void {
  // A `__proto__` key is data, as in JSON.parse, not the prototype.
  Object.defineProperty(map, key, { value, enumerable: true, writable: true, configurable: true });
}

function elementValue(element: Element, f: WireField, path: string, at: number): unknown {
  if (element.kind === 'scalar') return scalarValue(element.scalar, f, path, at);
  if (f.wireType !== 2) throw wrongWire(path, at);
  return decodeAt(element.name, f.value, path, at);
}

/** Offsets of a message's fields are not tracked; errors name the message's offset. */
function decodeAt(typeName: string, bytes: Uint8Array, path: string, at: number): unknown {
  const plan = planOf(typeName);
  const fields = readFields(bytes, at);
  if (plan.type.json) return decodeSpecial(plan, fields, path, at);
  const values = new Map<FieldPlan, unknown>();
  for (const f of fields) {
    const field = plan.numbers.get(f.field);
    if (!field) continue; // unknown fields are skipped, as gogo's Unmarshal does
    const name = `${path}.${field.field.name}`;
    if (field.repeated) {
      const list = (values.get(field) as unknown[] | undefined) ?? [];
      values.set(field, list);
      if (
        field.element.kind === 'scalar' &&
        field.element.scalar !== 'string' &&
        field.element.scalar !== 'bytes' &&
        f.wireType === 2
      ) {
        list.push(...unpack(field.element.scalar, f.value, name, at));
      } else list.push(elementValue(field.element, f, name, at));
    } else if (field.map) {
      if (f.wireType !== 2) throw wrongWire(name, at);
      const map = (values.get(field) as Json | undefined) ?? {};
      values.set(field, map);
      let key = '';
      let value: unknown;
      for (const e of readFields(f.value, at)) {
        if (e.field === 1) key = scalarValue('string', e, name, at) as string;
        else if (e.field === 2) value = elementValue(field.element, e, `${name}.${key}`, at);
      }
      if (value === undefined) {
        value =
          field.element.kind === 'scalar'
            ? (ZERO[field.element.scalar] ?? '')
            : decodeAt(field.element.name, new Uint8Array(), name, at);
      }
      setKey(map, key, value);
    } else {
      values.set(field, elementValue(field.element, f, name, at));
    }
  }
  // encoding/json's view of the Go struct, in declaration order.
  const out: Json = {};
  for (const field of plan.declared) {
    const { name, pointer, keepEmpty } = field.field;
    let value = values.get(field);
    if (field.field.inline) {
      if (isRecord(value)) Object.assign(out, value);
      continue;
    }
    if (value === undefined) {
      if (!keepEmpty) continue;
      if (field.repeated) value = [];
      else if (field.element.kind === 'scalar') value = ZERO[field.element.scalar] ?? '';
      else continue;
    } else if (
      !pointer &&
      !keepEmpty &&
      field.element.kind === 'scalar' &&
      !field.repeated &&
      !field.map
    ) {
      if (isZeroScalar(value)) continue;
    }
    out[name] = value;
  }
  return out;
}

function formatTime(seconds: number, nanos: number, micro: boolean): string {
  const date = new Date(seconds * 1000);
  const base = date.toISOString().slice(0, 19);
  if (!micro) return `${base}Z`;
  return `${base}.${String(Math.floor(nanos / 1000)).padStart(6, '0')}Z`;
}

function decodeSpecial(plan: Plan, fields: WireField[], path: string, at: number): unknown {
  const get = (name: string, scalar: string): unknown => {
    const number = numberOf(plan.name, name);
    let value: unknown;
    for (const f of fields)
      if (f.field === number) value = scalarValue(scalar, f, `${path}.${name}`, at);
    return value;
  };
  switch (plan.type.json) {
    case 'date-time': {
      // Zero (nothing written) is Go's zero time, which encoding/json writes as null.
      if (fields.length === 0) return null;
      const seconds = (get('seconds', 'int64') as number | undefined) ?? 0;
      const nanos = (get('nanos', 'int32') as number | undefined) ?? 0;
      if (!Number.isFinite(new Date(seconds * 1000).getTime()))
        throw new CodecError(`error decoding protobuf: ${path} is out of range`, at);
      return formatTime(seconds, nanos, plan.name === MICRO_TIME);
    }
    case 'duration': {
      const value = get('duration', 'int64') as number | undefined;
      return formatDurationNanos(BigInt(value ?? 0));
    }
    case 'quantity':
      return get('string', 'string') ?? '0';
    case 'int-or-string': {
      const type = (get('type', 'int64') as number | undefined) ?? 0;
      return type === 1 ? (get('strVal', 'string') ?? '') : (get('intVal', 'int32') ?? 0);
    }
    case 'object': {
      const raw = plan.type.fields[0];
      if (!raw) return {};
      let bytes: Uint8Array | undefined;
      for (const f of fields) {
        if (f.field !== raw.number) continue;
        if (f.wireType !== 2) throw wrongWire(path, at);
        bytes = f.value;
      }
      if (!bytes || bytes.length === 0) return null;
      if (hasMagic(bytes)) return decodeProtobuf(bytes, at);
      try {
        return JSON.parse(text.decode(bytes)) as unknown;
      } catch (err) {
        throw new CodecError(`error decoding protobuf: ${path} is not JSON`, at, { cause: err });
      }
    }
    case 'items': {
      const items = plan.declared[0];
      if (!items) return [];
      const out: unknown[] = [];
      for (const f of fields) {
        if (f.field === items.field.number) out.push(elementValue(items.element, f, path, at));
      }
      return out;
    }
    case 'schema-or-bool':
    case 'schema-or-array':
    case 'schema-or-string-array':
      return decodeSchemaOr(plan, fields, path, at);
  }
  return undefined;
}

/** JSONSchemaPropsOr*'s MarshalJSON: the list when it has items, else the schema (or the bool). */
function decodeSchemaOr(plan: Plan, fields: WireField[], path: string, at: number): unknown {
  let schema: unknown;
  let allows = false;
  const list: unknown[] = [];
  for (const f of fields) {
    const declared = plan.numbers.get(f.field);
    if (!declared) continue;
    const value = elementValue(declared.element, f, `${path}.${declared.field.name}`, at);
    if (declared.repeated) list.push(value);
    else if (declared.field.name === 'schema') schema = value;
    else if (declared.field.name === 'allows') allows = value === true;
  }
  if (plan.type.json === 'schema-or-bool') return schema ?? allows;
  if (list.length > 0) return list;
  return schema ?? null;
}

function hasMagic(bytes: Uint8Array): boolean {
  return PROTOBUF_MAGIC.every((b, i) => bytes[i] === b);
}

/** A message of a type of the schema source, as its JSON would read (no envelope). */
export function decodeProtobufMessage(typeName: string, bytes: Uint8Array, offset = 0): Json {
  const value = decodeAt(typeName, bytes, typeName.slice(typeName.lastIndexOf('.') + 1), offset);
  return isRecord(value) ? value : {};
}

/** The typeMeta and raw object of a `k8s\0` + runtime.Unknown payload. */
function unwrap(
  bytes: Uint8Array,
  offset: number,
): { apiVersion: string; kind: string; raw: Uint8Array } {
  if (!hasMagic(bytes)) {
    throw new CodecError(
      'error decoding protobuf: the data does not start with the k8s\\x00 prefix',
      offset,
    );
  }
  const body = bytes.subarray(PROTOBUF_MAGIC.length);
  const at = offset + PROTOBUF_MAGIC.length;
  let apiVersion = '';
  let kind = '';
  let raw: Uint8Array = new Uint8Array();
  for (const f of readFields(body, at)) {
    if (f.field === numberOf(UNKNOWN, 'typeMeta')) {
      if (f.wireType !== 2) throw wrongWire('Unknown.typeMeta', at);
      for (const t of readFields(f.value, at)) {
        if (t.field === numberOf(RUNTIME_TYPE_META, 'apiVersion'))
          apiVersion = scalarValue('string', t, 'apiVersion', at) as string;
        else if (t.field === numberOf(RUNTIME_TYPE_META, 'kind'))
          kind = scalarValue('string', t, 'kind', at) as string;
      }
    } else if (f.field === numberOf(UNKNOWN, 'raw')) {
      if (f.wireType !== 2) throw wrongWire('Unknown.raw', at);
      raw = f.value;
    } else if (f.field === numberOf(UNKNOWN, 'contentEncoding')) {
      const encoding = scalarValue('string', f, 'contentEncoding', at);
      if (encoding !== '') {
        throw new CodecError(
          `error decoding protobuf: unsupported content encoding ${JSON.stringify(encoding)}`,
          at,
        );
      }
    }
  }
  return { apiVersion, kind, raw };
}

/** The apiVersion and kind a protobuf payload declares, without decoding the object. */
export function protobufKindOf(bytes: Uint8Array): { apiVersion: string; kind: string } {
  const { apiVersion, kind } = unwrap(bytes, 0);
  return { apiVersion, kind };
}

/**
 * An object from its protobuf form (`k8s\0` + runtime.Unknown), as its JSON would read. A kind
 * the schema source lacks, or malformed bytes, is a CodecError (400).
 */
export function decodeProtobuf(bytes: Uint8Array, offset = 0): KubeObject {
  const { apiVersion, kind, raw } = unwrap(bytes, offset);
  const type = protobufTypeOf(apiVersion, kind);
  if (!type) {
    throw new CodecError(
      `error decoding protobuf: no kind ${JSON.stringify(kind)} is registered for version ${JSON.stringify(apiVersion)}`,
      offset,
    );
  }
  const body = decodeProtobufMessage(type, raw, offset);
  return { apiVersion, kind, ...body } as KubeObject;
}

/** One protobuf watch event (a metav1.WatchEvent message, unframed). */
export function decodeProtobufWatchEvent(bytes: Uint8Array, offset = 0): WatchEvent {
  let type: unknown;
  let object: unknown;
  for (const f of readFields(bytes, offset)) {
    if (f.field === numberOf(WATCH_EVENT, 'type')) type = scalarValue('string', f, 'type', offset);
    else if (f.field === numberOf(WATCH_EVENT, 'object')) {
      if (f.wireType !== 2) throw wrongWire('WatchEvent.object', offset);
      for (const r of readFields(f.value, offset)) {
        if (r.field !== numberOf(RAW_EXTENSION, 'raw')) continue;
        if (r.wireType !== 2) throw wrongWire('WatchEvent.object.raw', offset);
        object = decodeProtobuf(r.value, offset);
      }
    }
  }
  return toWatchEvent({ type, object }, offset);
}

// --- lists, item by item ------------------------------------------------------------------------

/** The list type of a list kind, and the numbers of its metadata and items fields. */
function listPlan(apiVersion: unknown, kind: unknown) {
  const type = protobufTypeOf(apiVersion, kind);
  if (!type) {
    throw new CodecError(`no protobuf encoding for ${String(kind)} of ${String(apiVersion)}`, 0);
  }
  const plan = planOf(type);
  const items = plan.declared.find((f) => f.field.name === 'items');
  const metadata = plan.declared.find((f) => f.field.name === 'metadata');
  if (
    !items ||
    !metadata ||
    items.element.kind !== 'message' ||
    metadata.element.kind !== 'message'
  ) {
    throw new CodecError(`${String(kind)} is not a list kind`, 0);
  }
  return {
    items: items.field.number,
    itemType: items.element.name,
    metadata: metadata.field.number,
    metadataType: metadata.element.name,
  };
}

/**
 * One item of a list in protobuf: its `items` field (tag, length and message), which a LIST
 * writes as is; remembered per item like the JSON and CBOR item encodings.
 */
export function encodeProtobufListItem(
  list: { apiVersion?: unknown; kind?: unknown },
  item: unknown,
): Uint8Array {
  const plan = listPlan(list.apiVersion, list.kind);
  const w = new WireWriter();
  try {
    writeMessage(
      w,
      plan.items,
      { kind: 'message', name: plan.itemType, type: lookup(plan.itemType) },
      item,
      'items',
    );
  } catch (err) {
    encodeError(err);
  }
  return w.finish();
}

/**
 * What surrounds a list's items in protobuf, once their encodings' total size is known: the
 * magic, the envelope up to `raw` and the list's metadata; then the contentEncoding and
 * contentType the envelope ends with. head + items + tail = encodeProtobuf(list).
 */
export function protobufListFrame(
  list: { apiVersion?: unknown; kind?: unknown; metadata?: unknown },
  itemsSize: number,
): { head: Uint8Array; tail: Uint8Array } {
  const plan = listPlan(list.apiVersion, list.kind);
  const metadata = new WireWriter(64);
  try {
    writeMessage(
      metadata,
      plan.metadata,
      { kind: 'message', name: plan.metadataType, type: lookup(plan.metadataType) },
      list.metadata ?? undefined,
      'metadata',
    );
  } catch (err) {
    encodeError(err);
  }
  const meta = metadata.finish();
  const w = new WireWriter(meta.length + 64);
  w.raw(PROTOBUF_MAGIC);
  const typeMeta = new WireWriter(64);
  typeMeta.bytes(numberOf(RUNTIME_TYPE_META, 'apiVersion'), utf8.encode(list.apiVersion as string));
  typeMeta.bytes(numberOf(RUNTIME_TYPE_META, 'kind'), utf8.encode(list.kind as string));
  w.bytes(numberOf(UNKNOWN, 'typeMeta'), typeMeta.finish());
  w.tag(numberOf(UNKNOWN, 'raw'), 2);
  w.uint32(meta.length + itemsSize);
  w.raw(meta);
  const tail = new WireWriter(8);
  tail.bytes(numberOf(UNKNOWN, 'contentEncoding'), new Uint8Array());
  tail.bytes(numberOf(UNKNOWN, 'contentType'), new Uint8Array());
  return { head: w.finish().slice(), tail: tail.finish() };
}
