import { isRecord, parseDurationNanos } from '@listwatch/api';
import { CodecError } from '../codec-error.js';
import {
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
  type Plan,
} from './kube-protobuf-plan.js';
import { WireWriter } from './wire.js';

// JSON to protobuf, as Go's gogo-generated marshallers write it (see kube-protobuf.ts).

export const utf8 = new TextEncoder();

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

export function writeMessage(
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

export function encodeError(err: unknown): never {
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
