import { jsonFields, jsonShape, type JsonShape } from './schema.js';

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

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
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

interface Context {
  /** The innermost struct being decoded. */
  struct: string;
  /** JSON field names from the root (Go leaves out map keys and list indices). */
  path: readonly string[];
}

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
        value[key] = item === null ? zero(shape.values) : decodeValue(item, shape.values, at);
        if (resourceList && typeof value[key] === 'string')
          value[key] = canonicalQuantity(value[key], true);
      }
      return value;
    }
    case 'list': {
      if (!Array.isArray(value)) throw mismatch(jsonKind(value), goTypeName(shape), at);
      for (let i = 0; i < value.length; i++) {
        const item: unknown = value[i];
        value[i] = item === null ? zero(shape.items) : decodeValue(item, shape.items, at);
      }
      return value;
    }
    case 'struct':
      if (!isRecord(value)) throw mismatch(jsonKind(value), goTypeName(shape), at);
      return decodeStruct(value, shape.name, { struct: structName(shape.name), path: at.path });
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
      if (!isGoDuration(value)) throw new TypeMismatch(`time: invalid duration "${value}"`);
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
    decodeStruct(v, schemaType, { struct: structName(schemaType), path });
  if (isRecord(value)) return schema(value, at.path);
  if (form === 'schema-or-bool') {
    if (typeof value !== 'boolean') throw new TypeMismatch('boolean or JSON schema expected');
    return value;
  }
  if (!Array.isArray(value)) return value;
  value.forEach((item) => {
    if (form === 'schema-or-array') {
      if (!isRecord(item)) throw mismatch(jsonKind(item), structName(schemaType), at);
      schema(item, at.path);
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
  // Document order, as Go reports the first mismatch it meets.
  for (const name of Object.keys(object)) {
    const field = fields.get(name);
    if (!field) continue; // unknown fields are field validation's (registry/field-validation.ts)
    const value = object[name];
    if (value === null) {
      delete object[name];
      continue;
    }
    object[name] = decodeValue(value, jsonShape(field.type), {
      struct: at.struct,
      path: [...at.path, name],
    });
  }
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
 * MAX_JSON_NESTING_DEPTH, apiVersion and kind strings, then every field the kind's type
 * (`typeName`, a type of the schema source) has, of its Go type; a kind the source lacks (a
 * custom resource) has its ObjectMeta checked only. Values are replaced in place by what Go
 * decodes and re-encodes them to (a null map value becomes `""`, a Time is written in UTC).
 * Returns the first failure.
 */
export function decodeTypedObject(
  object: Record<string, unknown>,
  kind: string,
  typeName?: string,
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
  try {
    if (typeName) decodeStruct(object, typeName, { struct: kind, path: [] });
    else {
      object['metadata'] = decodeValue(object['metadata'], jsonShape(OBJECT_META), {
        struct: kind,
        path: ['metadata'],
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

// time.Parse for the two layouts metav1 uses, with Go's error wording.

const RFC3339 = '2006-01-02T15:04:05Z07:00';
const RFC3339_MICRO = '2006-01-02T15:04:05.000000Z07:00';

interface ParsedTime {
  /** Milliseconds since the epoch, UTC. */
  ms: number;
  /** Microseconds within the millisecond. */
  micros: number;
}

/**
 * time.Parse(layout, value) for RFC 3339 (Go accepts a fraction after the seconds whatever the
 * layout says): the instant, or Go's error text.
 */
export function parseRfc3339(value: string, layout = RFC3339): ParsedTime | string {
  const prefix = `parsing time ${JSON.stringify(value)} as ${JSON.stringify(layout)}`;
  const cannot = (rest: string, element: string) =>
    `${prefix}: cannot parse ${JSON.stringify(rest)} as ${JSON.stringify(element)}`;
  let at = 0;
  const digits = (n: number, element: string): number | string => {
    const part = value.slice(at, at + n);
    if (!new RegExp(`^\\d{${n}}$`).test(part)) return cannot(value.slice(at), element);
    at += n;
    return Number(part);
  };
  const literal = (text: string): string | undefined => {
    if (value.slice(at, at + text.length) !== text) return cannot(value.slice(at), text);
    at += text.length;
    return undefined;
  };
  const steps: [string, number][] = [
    ['2006', 4],
    ['-', 0],
    ['01', 2],
    ['-', 0],
    ['02', 2],
    ['T', 0],
    ['15', 2],
    [':', 0],
    ['04', 2],
    [':', 0],
    ['05', 2],
  ];
  const numbers: number[] = [];
  for (const [element, width] of steps) {
    if (width === 0) {
      const err = literal(element);
      if (err) return err;
    } else {
      const n = digits(width, element);
      if (typeof n === 'string') return n;
      numbers.push(n);
    }
  }
  let fraction = '';
  const fractionAt = at;
  if (value[at] === '.' || value[at] === ',') {
    const match = /^[.,](\d+)/.exec(value.slice(at));
    if (match?.[1]) {
      fraction = match[1];
      at += match[0].length;
    }
  }
  const micro = layout === RFC3339_MICRO;
  if (micro && fraction.length !== 6) return cannot(value.slice(fractionAt), '.000000');
  let offsetMinutes = 0;
  if (value[at] === 'Z') at++;
  else {
    const zone = /^([+-])(\d{2}):(\d{2})/.exec(value.slice(at));
    if (!zone) return cannot(value.slice(at), 'Z07:00');
    offsetMinutes = (Number(zone[2]) * 60 + Number(zone[3])) * (zone[1] === '-' ? -1 : 1);
    if (Number(zone[2]) > 24 || Number(zone[3]) > 60)
      return `parsing time ${JSON.stringify(value)}: time zone offset out of range`;
    at += zone[0].length;
  }
  const range = (what: string) => `parsing time ${JSON.stringify(value)}: ${what} out of range`;
  if (at < value.length)
    return `parsing time ${JSON.stringify(value)}: extra text: ${JSON.stringify(value.slice(at))}`;
  const [year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0] = numbers;
  if (month < 1 || month > 12) return range('month');
  const daysIn = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (day < 1 || day > daysIn) return range('day');
  if (hour > 23) return range('hour');
  if (minute > 59) return range('minute');
  if (second > 59) return range('second');
  const padded = (fraction + '000000').slice(0, 6);
  const base = Date.UTC(year, month - 1, day, hour, minute, second);
  const utc = new Date(base);
  utc.setUTCFullYear(year);
  return {
    ms: utc.getTime() - offsetMinutes * 60_000 + Number(padded.slice(0, 3)),
    micros: Number(padded.slice(3)),
  };
}

/** Time.MarshalJSON (RFC 3339 in UTC, whole seconds) or MicroTime's (six fraction digits). */
function formatRfc3339(time: ParsedTime, micro: boolean): string {
  const iso = new Date(time.ms).toISOString(); // yyyy-mm-ddThh:mm:ss.sssZ
  const seconds = iso.slice(0, 19);
  if (!micro) return `${seconds}Z`;
  return `${seconds}.${iso.slice(20, 23)}${String(time.micros).padStart(3, '0')}Z`;
}

/** time.ParseDuration's grammar: `[-+]` then one or more `<decimal><unit>`, or `0`. */
function isGoDuration(text: string): boolean {
  return /^[-+]?(0|((\d+\.?\d*|\.\d+)(ns|us|µs|μs|ms|s|m|h))+)$/.test(text);
}

/** resource.ParseQuantity's errors (k8s.io/apimachinery pkg/api/resource/quantity.go). */
const QUANTITY_FORMAT_ERROR =
  "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
const QUANTITY_SUFFIXES = new Set([
  '',
  'n',
  'u',
  'm',
  'k',
  'M',
  'G',
  'T',
  'P',
  'E',
  'Ki',
  'Mi',
  'Gi',
  'Ti',
  'Pi',
  'Ei',
]);

/** Why `text` is not a resource.Quantity, or undefined when it is one. */
export function quantityError(text: string): string | undefined {
  const match = /^([+-]?)(\d*)(?:\.(\d*))?(.*)$/.exec(text);
  if (!match || (!match[2] && !match[3])) return QUANTITY_FORMAT_ERROR;
  const suffix = match[4] ?? '';
  if (/[.]/.test(suffix)) return QUANTITY_FORMAT_ERROR;
  if (QUANTITY_SUFFIXES.has(suffix)) return undefined;
  if (/^[eE][-+]?\d+$/.test(suffix)) return undefined;
  if (!/^[eEinumkKMGTP]*[-+]?[0-9]*$/.test(suffix)) return QUANTITY_FORMAT_ERROR;
  return "unable to parse quantity's suffix";
}

// resource.Quantity's canonical form (k8s.io/apimachinery pkg/api/resource/quantity.go
// CanonicalizeBytes), which is how kube writes every quantity back: `1000m` is `1`, `1.5Gi` is
// `1536Mi`, `2000` is `2k`.

const DECIMAL_SUFFIXES: Readonly<Record<string, number>> = {
  n: -9,
  u: -6,
  m: -3,
  '': 0,
  k: 3,
  M: 6,
  G: 9,
  T: 12,
  P: 15,
  E: 18,
};
const BINARY_SUFFIXES = ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'];

/** A parsed quantity: `sign * digits * 10^exp10 * 2^exp2`, and how it was written. */
interface ParsedQuantity {
  negative: boolean;
  digits: bigint;
  exp10: number;
  exp2: number;
  format: 'DecimalSI' | 'BinarySI' | 'DecimalExponent';
}

function parseQuantity(text: string): ParsedQuantity | undefined {
  const match = /^([+-]?)(\d*)(?:\.(\d*))?(.*)$/.exec(text);
  if (!match || quantityError(text)) return undefined;
  const [, sign = '', whole = '', fraction = '', suffix = ''] = match;
  const digits = BigInt(`${whole}${fraction}` || '0');
  let exp10 = -fraction.length;
  let exp2 = 0;
  let format: ParsedQuantity['format'] = 'DecimalSI';
  const binary = BINARY_SUFFIXES.indexOf(suffix);
  if (suffix !== '' && binary > 0) {
    exp2 = binary * 10;
    format = 'BinarySI';
  } else if (Object.hasOwn(DECIMAL_SUFFIXES, suffix)) {
    exp10 += DECIMAL_SUFFIXES[suffix] ?? 0;
  } else {
    exp10 += Number(suffix.slice(1));
    format = 'DecimalExponent';
  }
  return { negative: sign === '-', digits, exp10, exp2, format };
}

/** The quantity's magnitude as `n * 10^exp`, exactly. */
function decimal(q: ParsedQuantity): [bigint, number] {
  return [q.digits * 2n ** BigInt(q.exp2), q.exp10];
}

/**
 * The exact value of a valid quantity as `value * 10^exp10`, `value` signed and without trailing
 * zeros (so equal quantities have equal forms: `1000m`, `1` and `0.001k`); undefined if invalid.
 */
export function quantityDecimal(text: string): { value: bigint; exp10: number } | undefined {
  const q = parseQuantity(text);
  if (!q) return undefined;
  let [n, exp] = decimal(q);
  if (n === 0n) return { value: 0n, exp10: 0 };
  while (n % 10n === 0n) {
    n /= 10n;
    exp++;
  }
  return { value: q.negative ? -n : n, exp10: exp };
}

function ceilDiv(n: bigint, d: bigint): bigint {
  return n % d === 0n ? n / d : n / d + 1n;
}

/**
 * The canonical text of a valid quantity; `roundToMilli` rounds it up to milli-units first
 * (SetDefaults_ResourceList, for the quantities of resource lists).
 */
export function canonicalQuantity(text: string, roundToMilli = false): string {
  const q = parseQuantity(text);
  if (!q) return text;
  let [n, exp] = decimal(q);
  if (n === 0n) return '0';
  const minExp = roundToMilli ? -3 : -9;
  if (exp < minExp) {
    n = ceilDiv(n, 10n ** BigInt(minExp - exp));
    exp = minExp;
  }
  const sign = q.negative ? '-' : '';
  let format = q.format;
  if (format === 'BinarySI') {
    // Below 1024 or not a whole number it is written as DecimalSI (CanonicalizeBytes).
    const whole =
      exp >= 0
        ? n * 10n ** BigInt(exp)
        : n % 10n ** BigInt(-exp) === 0n
          ? n / 10n ** BigInt(-exp)
          : undefined;
    if (whole === undefined || whole < 1024n) format = 'DecimalSI';
    else {
      let value = whole;
      let k = 0;
      while (k < BINARY_SUFFIXES.length - 1 && value % 1024n === 0n) {
        value /= 1024n;
        k++;
      }
      return `${sign}${value}${BINARY_SUFFIXES[k]}`;
    }
  }
  while (n % 10n === 0n) {
    n /= 10n;
    exp++;
  }
  // The exponent goes down to a multiple of three (a whole number of units of a suffix).
  const down = ((exp % 3) + 3) % 3;
  n *= 10n ** BigInt(down);
  exp -= down;
  if (format === 'DecimalExponent') return `${sign}${n}${exp === 0 ? '' : `e${exp}`}`;
  if (exp > 18) {
    n *= 10n ** BigInt(exp - 18);
    exp = 18;
  }
  const suffix = Object.entries(DECIMAL_SUFFIXES).find(([, e]) => e === exp)?.[0] ?? '';
  return `${sign}${n}${suffix}`;
}

/** The exact value of a parsed quantity as `n / 10^scale` (n signed). */
function rational(q: ParsedQuantity): [bigint, number] {
  const [n, exp] = decimal(q);
  const signed = q.negative ? -n : n;
  return exp >= 0 ? [signed * 10n ** BigInt(exp), 0] : [signed, -exp];
}

/**
 * resource.Quantity Cmp: -1, 0 or 1 as `a` is less than, equal to or greater than `b`, exactly;
 * undefined when either is not a quantity.
 */
export function compareQuantities(a: string, b: string): -1 | 0 | 1 | undefined {
  const qa = parseQuantity(a);
  const qb = parseQuantity(b);
  if (!qa || !qb) return undefined;
  const [na, sa] = rational(qa);
  const [nb, sb] = rational(qb);
  const scale = Math.max(sa, sb);
  const x = na * 10n ** BigInt(scale - sa);
  const y = nb * 10n ** BigInt(scale - sb);
  return x < y ? -1 : x > y ? 1 : 0;
}

/** resource.Quantity Sign: -1, 0 or 1; undefined when `text` is not a quantity. */
export function quantitySign(text: string): -1 | 0 | 1 | undefined {
  return compareQuantities(text, '0');
}
