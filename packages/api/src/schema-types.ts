// The format of the schema source (generated/schemas.ts): the Kubernetes types we serve, as the
// generated.proto files of kubernetes/api and kubernetes/apimachinery declare them, with the Go
// markers (+patchStrategy, +listType, +optional...) of their comments as fields. One source for
// OpenAPI, field validation and strategic merge patch; later for defaults, typed validation,
// server-side apply and protobuf, which is why proto field numbers and scalar types are kept.

/** The proto2 scalar types Kubernetes' .proto files use (no unsigned or fixed ones). */
export const PROTO_SCALARS = [
  'string',
  'bool',
  'int32',
  'int64',
  'double',
  'float',
  'bytes',
] as const;

/** A proto2 scalar type, as Kubernetes' .proto files use them. */
export type ProtoScalar = (typeof PROTO_SCALARS)[number];

export function isProtoScalar(type: string): type is ProtoScalar {
  return (PROTO_SCALARS as readonly string[]).includes(type);
}

/**
 * How a message whose Go type marshals itself appears in JSON, instead of an object of its
 * fields: `date-time` (metav1.Time, MicroTime: RFC 3339 strings), `duration` (metav1.Duration:
 * a Go duration string), `quantity` (resource.Quantity: `500m`, `1Gi` or a number),
 * `int-or-string` (intstr.IntOrString), `object` (any JSON object, kept as is: FieldsV1,
 * RawExtension, Patch) and `items` (a named slice like metav1.Verbs: the list of its `items`).
 */
export type JsonForm =
  | 'date-time'
  | 'duration'
  | 'quantity'
  | 'int-or-string'
  | 'object'
  | 'items'
  // apiextensions.k8s.io/v1 JSONSchemaPropsOrArray, OrBool, OrStringArray: a schema, or an
  // array of schemas, a boolean, an array of strings.
  | 'schema-or-array'
  | 'schema-or-bool'
  | 'schema-or-string-array';

export interface SourceField {
  /** The JSON name (the proto name but for two go-to-protobuf spellings, see `protoName`). */
  readonly name: string;
  /** The proto field name, when it is not the JSON name (`uID` for `uid`). */
  readonly protoName?: string;
  /** The proto field number. */
  readonly number: number;
  /**
   * A proto scalar (`string`, `int64`...), a type of `types` (`io.k8s.api.core.v1.PodSpec`),
   * `[]T` for a repeated field or `map[string]T` for a proto map.
   */
  readonly type: string;
  readonly description?: string;
  /** Marked `+optional` (or `+k8s:optional`). */
  readonly optional?: true;
  /**
   * Marked `+required` (or `+k8s:required`). kube's OpenAPI also requires fields whose json tag
   * lacks omitempty, which the .proto does not show: those are not marked here.
   */
  readonly required?: true;
  /** A Go struct embedded with `json:""`: its fields appear in this type's JSON. */
  readonly inline?: true;
  /** `+default=`, when it is a JSON literal. */
  readonly default?: string | number | boolean;
  /** `+patchStrategy=`: `merge`, `retainKeys`, `merge,retainKeys` or `replace`. */
  readonly patchStrategy?: string;
  /** `+patchMergeKey=`: what identifies an item of a list merged by strategic merge patch. */
  readonly patchMergeKey?: string;
  /** `+listType=`, for server-side apply. */
  readonly listType?: 'atomic' | 'set' | 'map';
  /** `+listMapKey=` (in order), the keys of a `map` list. */
  readonly listMapKeys?: readonly string[];
  /** `+mapType=`. */
  readonly mapType?: 'atomic' | 'granular';
  /**
   * A Go pointer (`*int32`, `*Time`): unset is not zero. Go's protobuf marshaller writes every
   * other field even when zero, so only for these does a zero on the wire mean "set to zero".
   */
  readonly pointer?: true;
  /** Its Go json tag lacks omitempty: JSON has it even when zero (`status.replicas: 0`). */
  readonly keepEmpty?: true;
}

export interface SourceType {
  readonly description?: string;
  /** Set when the JSON form is not an object of `fields` (see JsonForm). */
  readonly json?: JsonForm;
  /** `+structType=`: `atomic` structs are replaced whole by server-side apply. */
  readonly structType?: 'atomic' | 'granular';
  /** In declaration order, which is the Go struct's and so the order JSON is written in. */
  readonly fields: readonly SourceField[];
}

/** A kind: its group, version and name, and its type in `types`. */
export interface SourceKind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly type: string;
}

export interface SchemaSource {
  /** Where the facts come from, and which commits. */
  readonly source: string;
  /** Every kind; a kind's type also has apiVersion and kind (metav1.TypeMeta) in JSON. */
  readonly kinds: readonly SourceKind[];
  /** Types by their OpenAPI definition name (`io.k8s.api.core.v1.Pod`). */
  readonly types: Readonly<Record<string, SourceType>>;
}
