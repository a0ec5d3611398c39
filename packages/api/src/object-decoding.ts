// kube-apiserver decodes every body, and every patch result, into the kind's Go struct
// (sigs.k8s.io/json, a fork of encoding/json): a JSON value of the wrong type there is an
// UnmarshalTypeError, nesting past 10000 levels a syntax error, and a null becomes the Go zero
// value. Objects stay JSON here, so this checks what the Go types would refuse in the part every
// kind shares (TypeMeta, ObjectMeta) plus the fields a kind declares, with Go's wording.

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

/** A Go type as the decoder sees it; `name` is how error messages print it. */
export type GoType =
  | { kind: 'string' | 'int32' | 'int64' | 'bool' | 'bytes' | 'time' | 'raw'; name: string }
  | { kind: 'map' | 'slice'; name: string; elem: GoType }
  | GoStruct;

export interface GoStruct {
  kind: 'struct';
  name: string;
  /** The struct's own name, as `Go struct field <Struct>.<path>` says it. */
  struct: string;
  fields: Readonly<Record<string, GoField>>;
}

export interface GoField {
  type: GoType;
  /** Encoded even when empty (no omitempty): a missing or null value is written as the zero. */
  required?: boolean;
}

const scalar = (
  kind: 'string' | 'int32' | 'int64' | 'bool' | 'bytes' | 'time' | 'raw',
  name: string,
) => ({ kind, name }) as const;

/** Constructors for the Go types objects are decoded into. */
export const goTypes = {
  string: scalar('string', 'string'),
  /** A named string type (`v1.SecretType`). */
  namedString: (name: string) => scalar('string', name),
  int32: scalar('int32', 'int32'),
  int64: scalar('int64', 'int64'),
  bool: scalar('bool', 'bool'),
  /** []byte: a base64 string on the wire (the encoding is checked by validation, not here). */
  bytes: scalar('bytes', '[]uint8'),
  /** metav1.Time: its UnmarshalJSON reads a string, so a mismatch names `string`. */
  time: scalar('time', 'string'),
  /** Raw JSON kept as sent (metav1.FieldsV1). */
  raw: scalar('raw', 'json.RawMessage'),
  map: (elem: GoType): GoType => ({ kind: 'map', name: `map[string]${elem.name}`, elem }),
  slice: (elem: GoType): GoType => ({ kind: 'slice', name: `[]${elem.name}`, elem }),
  struct: (pkg: string, struct: string, fields: Record<string, GoField>): GoStruct => ({
    kind: 'struct',
    name: `${pkg}.${struct}`,
    struct,
    fields,
  }),
};

const { string, int64, bool, time, raw, map, slice, struct } = goTypes;

const OWNER_REFERENCE = struct('v1', 'OwnerReference', {
  apiVersion: { type: string, required: true },
  kind: { type: string, required: true },
  name: { type: string, required: true },
  uid: { type: string, required: true },
  controller: { type: bool },
  blockOwnerDeletion: { type: bool },
});

const MANAGED_FIELDS_ENTRY = struct('v1', 'ManagedFieldsEntry', {
  manager: { type: string },
  operation: { type: goTypes.namedString('v1.ManagedFieldsOperationType') },
  apiVersion: { type: string },
  time: { type: time },
  fieldsType: { type: string },
  fieldsV1: { type: raw },
  subresource: { type: string },
});

/** metav1.ObjectMeta (k8s.io/apimachinery pkg/apis/meta/v1/types.go). */
export const OBJECT_META_TYPE = struct('v1', 'ObjectMeta', {
  name: { type: string },
  generateName: { type: string },
  namespace: { type: string },
  selfLink: { type: string },
  uid: { type: string },
  resourceVersion: { type: string },
  generation: { type: int64 },
  creationTimestamp: { type: time },
  deletionTimestamp: { type: time },
  deletionGracePeriodSeconds: { type: int64 },
  labels: { type: map(string) },
  annotations: { type: map(string) },
  ownerReferences: { type: slice(OWNER_REFERENCE) },
  finalizers: { type: slice(string) },
  managedFields: { type: slice(MANAGED_FIELDS_ENTRY) },
});

class TypeMismatch extends Error {}

/** What UnmarshalTypeError calls the JSON value it found. */
function jsonKind(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'object') return 'object';
  return typeof value === 'boolean' ? 'bool' : typeof value;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

interface Context {
  /** The innermost struct being decoded. */
  struct: string;
  /** JSON field names from the root (Go leaves out map keys and list indices). */
  path: readonly string[];
}

function mismatch(what: string, type: GoType, at: Context): TypeMismatch {
  return new TypeMismatch(
    `json: cannot unmarshal ${what} into Go struct field ${at.struct}.${at.path.join('.')} of type ${type.name}`,
  );
}

/** The Go zero value as encoding/json writes it back (only what `required` fields need). */
function zero(type: GoType): unknown {
  switch (type.kind) {
    case 'string':
    case 'bytes':
      return '';
    case 'int32':
    case 'int64':
      return 0;
    case 'bool':
      return false;
    case 'struct':
      return decodeStruct({}, type, { struct: type.struct, path: [] });
    default:
      return null;
  }
}

/**
 * Decodes one non-null value: the value as Go would re-encode it, or a TypeMismatch. Recursion
 * follows the Go type, not the input, so its depth is bounded by the type.
 */
function decodeValue(value: unknown, type: GoType, at: Context): unknown {
  switch (type.kind) {
    case 'string':
    case 'bytes':
    case 'time':
      if (typeof value !== 'string') throw mismatch(jsonKind(value), type, at);
      return value;
    case 'int32':
    case 'int64': {
      if (typeof value !== 'number') throw mismatch(jsonKind(value), type, at);
      const bits = type.kind === 'int32' ? 31 : 63;
      if (!Number.isInteger(value) || value >= 2 ** bits || value < -(2 ** bits))
        throw mismatch(`number ${value}`, type, at);
      return value;
    }
    case 'bool':
      if (typeof value !== 'boolean') throw mismatch(jsonKind(value), type, at);
      return value;
    case 'raw':
      return value;
    case 'map': {
      if (!isRecord(value)) throw mismatch(jsonKind(value), type, at);
      for (const key of Object.keys(value)) {
        const item = value[key];
        value[key] = item === null ? zero(type.elem) : decodeValue(item, type.elem, at);
      }
      return value;
    }
    case 'slice': {
      if (!Array.isArray(value)) throw mismatch(jsonKind(value), type, at);
      for (let i = 0; i < value.length; i++) {
        const item: unknown = value[i];
        value[i] = item === null ? zero(type.elem) : decodeValue(item, type.elem, at);
      }
      return value;
    }
    case 'struct':
      if (!isRecord(value)) throw mismatch(jsonKind(value), type, at);
      return decodeStruct(value, type, { struct: type.struct, path: at.path });
  }
}

function decodeStruct(
  object: Record<string, unknown>,
  type: GoStruct,
  at: Context,
): Record<string, unknown> {
  for (const [name, field] of Object.entries(type.fields)) {
    const value = Object.hasOwn(object, name) ? object[name] : undefined;
    if (value === undefined || value === null) {
      if (field.required) object[name] = zero(field.type);
      else if (value === null) delete object[name];
      continue;
    }
    object[name] = decodeValue(value, field.type, { struct: at.struct, path: [...at.path, name] });
  }
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
 * MAX_JSON_NESTING_DEPTH, apiVersion and kind strings, metadata a metav1.ObjectMeta, and `fields`
 * (the kind's own, when it declares any) of their Go types. Nulls are replaced in place by what
 * Go decodes them to, so `metadata.labels.a: null` becomes `""`. Returns the first failure.
 */
export function decodeTypedObject(
  object: Record<string, unknown>,
  kind: string,
  fields: Readonly<Record<string, GoField>> = {},
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
  const type = struct('', kind, { metadata: { type: OBJECT_META_TYPE }, ...fields });
  try {
    decodeStruct(object, type, { struct: kind, path: [] });
  } catch (err) {
    if (err instanceof TypeMismatch) return { message: err.message, typeMeta: false };
    throw err;
  }
  return undefined;
}
