import {
  formatDurationNanos,
  formatRfc3339,
  isRecord,
  type KubeObject,
  type WatchEvent,
} from '@listwatch/api';
import { CodecError } from '../codec-error.js';
import { toWatchEvent } from '../watch-event.js';
import {
  hasMagic,
  MICRO_TIME,
  numberOf,
  planOf,
  protobufTypeOf,
  PROTOBUF_MAGIC,
  RAW_EXTENSION,
  RUNTIME_TYPE_META,
  UNKNOWN,
  WATCH_EVENT,
  ZERO,
  type Element,
  type FieldPlan,
  type Json,
  type Plan,
} from './kube-protobuf-plan.js';
import { readFields, readVarint, type WireField } from './wire.js';

// Protobuf to JSON, as encoding/json would write the Go struct (see kube-protobuf.ts).

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

/** google.protobuf.Timestamp's seconds and nanos as metav1.Time or MicroTime JSON. */
function formatTime(seconds: number, nanos: number, micro: boolean): string {
  const ms = seconds * 1000 + Math.floor(nanos / 1_000_000);
  return formatRfc3339({ ms, micros: Math.floor(nanos / 1000) % 1000 }, micro);
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
