import { parseDurationNanos } from './duration.js';
import { canonicalQuantity, quantityError } from './quantity.js';
import { jsonFields, jsonShape, type JsonShape } from './schema.js';
import { formatRfc3339, parseRfc3339, RFC3339, RFC3339_MICRO } from './time.js';
import { isRecord } from './unstructured.js';

// kube-apiserver decodes every body, and every patch result, into the kind's Go struct
// (sigs.k8s.io/json, a fork of encoding/json): a JSON value of the wrong type there is an
// UnmarshalTypeError, nesting past 10000 levels a syntax error, and a null becomes the Go zero
// value. Objects stay JSON here, so this walks them against the kind's type in the schema source
// (generated/schemas.ts) and refuses what the Go types would, with Go's wording. Types that
// marshal themselves are checked as their UnmarshalJSON does: metav1.Time (RFC 3339, written
// back in UTC), MicroTime, metav1.Duration, resource.Quantity, intstr.IntOrString.

/** encoding/json's maxNestingDepth, which sigs.k8s.io/json and apimachinery's utiljson keep. */
export const MAX_JSON_NESTING_DEPTH = 10_000;

/** Whether `value` nests objects and arrays more than `max` deep (iterative: any depth is safe). */
export function exceedsJsonDepth(value: unknown, max = MAX_JSON_NESTING_DEPTH): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const stack: [object, number][] = [[value, 1]];
  for (let item = stack.pop(); item; item = stack.pop()) {
    const [node, depth] = item;
    if (depth > max) return true;
    const children: unknown[] = Array.isArray(node)
      ? node
      : Object.values(node as Record<string, unknown>);
    for (const child of children) {
      if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
    }
  }
  return false;
}

const OBJECT_META = 'io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';

class TypeMismatch extends Error {}

/** What UnmarshalTypeError calls the JSON value it found. */
function jsonKind(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'object') return 'object';
  return typeof value === 'boolean' ? 'bool' : typeof value;
}

/** `io.k8s.api.apps.v1.DeploymentSpec` → `DeploymentSpec`. */
function structName(type: string): string {
  return type.slice(type.lastIndexOf('.') + 1);
}

/** Go's name for a type of the source (`v1.DeploymentSpec`), as UnmarshalTypeError prints it. */
function goTypeName(shape: JsonShape): string {
  switch (shape.kind) {
    case 'scalar':
      return (
        { double: 'float64', float: 'float32', bytes: '[]uint8' }[shape.scalar as string] ??
        shape.scalar
      );
    case 'list':
      return `[]${goTypeName(shape.items)}`;
    case 'map':
      return `map[string]${goTypeName(shape.values)}`;
    case 'special':
    case 'struct': {
      const parts = shape.name.split('.');
      return `${parts[parts.length - 2] ?? ''}.${parts[parts.length - 1] ?? ''}`;
    }
  }
}

/**
 * What the apiserver does in the same pass as the typed decode, so that a written body is walked
 * once: `unknownField` for each field a struct's type lacks, in document order (pruning: kube's
 * decoder never stores one), `leave` once a struct and what it holds are decoded (defaulting;
 * `filled` names the fields the decoder wrote as Go zero values). `at` is the path from the root,
 * list indices and map keys included.
 */
export interface DecodeVisitor {
  unknownField(
    object: Record<string, unknown>,
    key: string,
    at: readonly (string | number)[],
  ): void;
  leave(typeName: string, object: Record<string, unknown>, filled: readonly string[]): void;
}

/** A visitor and the path of the value being decoded (list indices and map keys included). */
interface Visit {
  readonly visitor: DecodeVisitor;
  readonly at: (string | number)[];
}

interface Context {
  /** The innermost struct being decoded. */
  struct: string;
  /** JSON field names from the root (Go leaves out map keys and list indices). */
  path: readonly string[];
  visit?: Visit | undefined;
}

const NONE_FILLED: readonly string[] = [];

function mismatch(what: string, typeName: string, at: Context): TypeMismatch {
  return new TypeMismatch(
    `json: cannot unmarshal ${what} into Go struct field ${at.struct}.${at.path.join('.')} of type ${typeName}`,
  );
}

/** The Go zero value as encoding/json writes a field without omitempty (scalars only). */
function zero(shape: JsonShape): unknown {
  if (shape.kind === 'scalar') {
    if (shape.scalar === 'string' || shape.scalar === 'bytes') return '';
    return shape.scalar === 'bool' ? false : 0;
  }
  if (shape.kind === 'struct') return decodeStruct({}, shape.name, { struct: '', path: [] });
  return null;
}

function checkInteger(value: unknown, bits: 32 | 64, typeName: string, at: Context): number {
  if (typeof value !== 'number') throw mismatch(jsonKind(value), typeName, at);
  const limit = 2 ** (bits - 1);
  if (!Number.isInteger(value) || value >= limit || value < -limit)
    throw mismatch(`number ${value}`, typeName, at);
  return value;
}

/**
 * Decodes one non-null value: the value as Go would re-encode it, or a TypeMismatch (or a
 * type's own UnmarshalJSON error). Recursion follows the Go type, not the input.
 */
function decodeValue(value: unknown, shape: JsonShape, at: Context): unknown {
  switch (shape.kind) {
    case 'scalar':
      switch (shape.scalar) {
        case 'string':
        case 'bytes':
          // A []byte that is not base64 is left for the kind's validation (Secret: 422 on its key).
          if (typeof value !== 'string') throw mismatch(jsonKind(value), goTypeName(shape), at);
          return value;
        case 'bool':
          if (typeof value !== 'boolean') throw mismatch(jsonKind(value), 'bool', at);
          return value;
        case 'int32':
          return checkInteger(value, 32, 'int32', at);
        case 'int64':
          return checkInteger(value, 64, 'int64', at);
        default:
          if (typeof value !== 'number') throw mismatch(jsonKind(value), goTypeName(shape), at);
          return value;
      }
    case 'special':
      return decodeSpecial(value, shape, at);
    case 'map': {
      if (!isRecord(value)) throw mismatch(jsonKind(value), goTypeName(shape), at);
      // A map of quantities is a ResourceList: SetDefaults_ResourceList rounds it up to milli.
      const resourceList = shape.values.kind === 'special' && shape.values.form === 'quantity';
      for (const key of Object.keys(value)) {
        const item = value[key];
        at.visit?.at.push(key);
        value[key] = item === null ? zero(shape.values) : decodeValue(item, shape.values, at);
        at.visit?.at.pop();
        if (resourceList && typeof value[key] === 'string')
          value[key] = canonicalQuantity(value[key], true);
      }
      return value;
    }
    case 'list': {
      if (!Array.isArray(value)) throw mismatch(jsonKind(value), goTypeName(shape), at);
      for (let i = 0; i < value.length; i++) {
        const item: unknown = value[i];
        at.visit?.at.push(i);
        value[i] = item === null ? zero(shape.items) : decodeValue(item, shape.items, at);
        at.visit?.at.pop();
      }
      return value;
    }
    case 'struct':
      if (!isRecord(value)) throw mismatch(jsonKind(value), goTypeName(shape), at);
      return decodeStruct(value, shape.name, {
        struct: structName(shape.name),
        path: at.path,
        visit: at.visit,
      });
  }
}

/** A self-marshalling type's UnmarshalJSON (its errors are returned as they are). */
function decodeSpecial(
  value: unknown,
  shape: Extract<JsonShape, { kind: 'special' }>,
  at: Context,
): unknown {
  switch (shape.form) {
    case 'date-time': {
      // metav1.Time/MicroTime: json.Unmarshal into a string (its type error gets the field's
      // context), then time.Parse; written back in UTC, MicroTime with microseconds.
      if (typeof value !== 'string') throw mismatch(jsonKind(value), 'string', at);
      const micro = shape.name.endsWith('.MicroTime');
      const parsed = parseRfc3339(value, micro ? RFC3339_MICRO : RFC3339);
      if (typeof parsed === 'string') throw new TypeMismatch(parsed);
      return formatRfc3339(parsed, micro);
    }
    case 'duration': {
      if (typeof value !== 'string') throw mismatch(jsonKind(value), 'string', at);
      // metav1.Duration.UnmarshalJSON: time.ParseDuration, its error as it is.
      const error = durationError(value);
      if (error) throw new TypeMismatch(error);
      return value;
    }
    case 'quantity': {
      // Quantity.UnmarshalJSON: quotes stripped, anything else parsed as its JSON text.
      const text = typeof value === 'string' ? value.trim() : JSON.stringify(value);
      const error = quantityError(text);
      if (error) throw new TypeMismatch(error);
      return canonicalQuantity(text);
    }
    case 'int-or-string':
      // IntOrString.UnmarshalJSON: a string, else json.Unmarshal into IntVal (int32).
      if (typeof value === 'string') return value;
      return checkInteger(value, 32, 'int32', at);
    case 'object':
      return value;
    case 'schema-or-bool':
    case 'schema-or-array':
    case 'schema-or-string-array':
      return decodeSchemaOr(value, shape.form, shape.name.replace(/Or\w+$/, ''), at);
  }
}

/** JSONSchemaPropsOrBool, OrArray and OrStringArray's UnmarshalJSON (apiextensions marshal.go). */
function decodeSchemaOr(
  value: unknown,
  form: 'schema-or-bool' | 'schema-or-array' | 'schema-or-string-array',
  schemaType: string,
  at: Context,
): unknown {
  const schema = (v: Record<string, unknown>, path: readonly string[]) =>
    decodeStruct(v, schemaType, { struct: structName(schemaType), path, visit: at.visit });
  if (isRecord(value)) return schema(value, at.path);
  if (form === 'schema-or-bool') {
    if (typeof value !== 'boolean') throw new TypeMismatch('boolean or JSON schema expected');
    return value;
  }
  if (!Array.isArray(value)) return value;
  value.forEach((item, i) => {
    if (form === 'schema-or-array') {
      if (!isRecord(item)) throw mismatch(jsonKind(item), structName(schemaType), at);
      at.visit?.at.push(i);
      schema(item, at.path);
      at.visit?.at.pop();
    } else if (typeof item !== 'string') throw mismatch(jsonKind(item), 'string', at);
  });
  return value;
}

function decodeStruct(
  object: Record<string, unknown>,
  typeName: string,
  at: Context,
): Record<string, unknown> {
  const fields = jsonFields(typeName);
  const visit = at.visit;
  // Document order, as Go reports the first mismatch it meets.
  for (const name of Object.keys(object)) {
    const field = fields.get(name);
    if (!field) {
      // Unknown fields are field validation's (apiserver registry/field-validation.ts).
      visit?.visitor.unknownField(object, name, visit.at);
      continue;
    }
    const value = object[name];
    if (value === null) {
      delete object[name];
      continue;
    }
    visit?.at.push(name);
    object[name] = decodeValue(value, jsonShape(field.type), {
      struct: at.struct,
      path: [...at.path, name],
      visit,
    });
    visit?.at.pop();
  }
  let filled: string[] | undefined;
  // A field whose Go json tag lacks omitempty (the source's `keepEmpty`, from the Go types) is
  // written by encoding/json as its zero value when missing: kube's OpenAPI lists it as required
  // and typed clients (the Python client's models) refuse an object without it. A +required
  // pointer (DeploymentSpec.selector) is written as null: left out.
  for (const field of fields.values()) {
    if (object[field.name] !== undefined) continue;
    const shape = jsonShape(field.type);
    if (field.keepEmpty) {
      if (shape.kind === 'scalar' || shape.kind === 'struct') object[field.name] = zero(shape);
    } else if (field.required && shape.kind === 'scalar') {
      object[field.name] = zero(shape);
    }
    if (visit && object[field.name] !== undefined) (filled ??= []).push(field.name);
  }
  visit?.visitor.leave(typeName, object, filled ?? NONE_FILLED);
  return object;
}

/** Why an object cannot be decoded, in the words of Go's decoder. */
export interface DecodeFailure {
  message: string;
  /**
   * The failure came before the typed decode: the JSON itself (too deep) or its apiVersion and
   * kind, which kube's serializer reads first (runtime/serializer/json SimpleMetaFactory).
   */
  typeMeta: boolean;
}

/**
 * Decodes an object of kind `kind` as kube-apiserver would: nesting at most
 * MAX_JSON_NESTING_DEPTH, apiVersion and kind strings, then every field the kind's type
 * (`typeName`, a type of the schema source) has, of its Go type; a kind the source lacks (a
 * custom resource) has its ObjectMeta checked only. Values are replaced in place by what Go
 * decodes and re-encodes them to (a null map value becomes `""`, a Time is written in UTC).
 * `visitor` sees each struct in the same pass (the apiserver prunes and defaults there).
 * Returns the first failure.
 */
export function decodeTypedObject(
  object: Record<string, unknown>,
  kind: string,
  typeName?: string,
  visitor?: DecodeVisitor,
): DecodeFailure | undefined {
  if (exceedsJsonDepth(object)) return { message: 'exceeded max depth', typeMeta: true };
  for (const name of ['apiVersion', 'kind']) {
    const value = object[name];
    if (value === null) delete object[name];
    else if (value !== undefined && typeof value !== 'string') {
      return {
        message: `json: cannot unmarshal ${jsonKind(value)} into Go struct field .${name} of type string`,
        typeMeta: true,
      };
    }
  }
  if (object['metadata'] === null || object['metadata'] === undefined) object['metadata'] = {};
  const visit: Visit | undefined = visitor ? { visitor, at: [] } : undefined;
  try {
    if (typeName) decodeStruct(object, typeName, { struct: kind, path: [], visit });
    else {
      visit?.at.push('metadata');
      object['metadata'] = decodeValue(object['metadata'], jsonShape(OBJECT_META), {
        struct: kind,
        path: ['metadata'],
        visit,
      });
    }
  } catch (err) {
    if (err instanceof TypeMismatch) return { message: err.message, typeMeta: false };
    throw err;
  }
  return undefined;
}

/**
 * Decodes a value of a type of the schema source that is not a kind (a struct embedded in an
 * annotation, as autoscaling/v1's round-trip annotations), in place as decodeTypedObject does.
 */
export function decodeTypedValue(value: unknown, typeName: string): string | undefined {
  const struct = typeName.slice(typeName.lastIndexOf('.') + 1);
  try {
    decodeValue(value, jsonShape(typeName), { struct, path: [] });
  } catch (err) {
    if (err instanceof TypeMismatch) return err.message;
    throw err;
  }
  return undefined;
}

/** Why `text` is not a Go duration (time.ParseDuration's error), or undefined when it is one. */
function durationError(text: string): string | undefined {
  try {
    parseDurationNanos(text);
    return undefined;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}
