import { CelScalar, celFunc, celMethod, objectType, type CelFunc } from '@bufbuild/cel';
import { create, type DescMessage, type Message } from '@bufbuild/protobuf';
import { quantityDecimal, quantityError } from '@listwatch/api';
import { celTypesRegistry } from './cel-types.js';

// Kubernetes' CEL quantity library (k8s.io/apiserver pkg/cel/library/quantity.go, the type of
// pkg/cel/quantity.go). kubernetes.Quantity (cel-types.ts) holds the exact value as
// `value * 10^exp10` without trailing zeros: equal quantities (`1`, `1000m`) are equal messages,
// as Quantity.Equal compares them.

const QuantityDesc = celTypesRegistry.getMessage('kubernetes.Quantity') as DescMessage;
const QUANTITY = objectType(QuantityDesc);
const { BOOL, DOUBLE, INT, STRING } = CelScalar;

interface Exact {
  value: bigint;
  exp10: number;
}
type QuantityMessage = Message & { value: string; exp10: number };

function toMessage({ value, exp10 }: Exact): QuantityMessage {
  let n = value;
  let e = exp10;
  if (n === 0n) e = 0;
  else
    while (n % 10n === 0n) {
      n /= 10n;
      e++;
    }
  return create(QuantityDesc, { value: n.toString(), exp10: e }) as QuantityMessage;
}

function exact(q: unknown): Exact {
  const message = (q as { message?: QuantityMessage }).message ?? (q as QuantityMessage);
  return { value: BigInt(message.value || '0'), exp10: message.exp10 };
}

/** Both at the smaller exponent, so their values compare and add. */
function aligned(a: Exact, b: Exact): [bigint, bigint, number] {
  const exp = Math.min(a.exp10, b.exp10);
  return [a.value * 10n ** BigInt(a.exp10 - exp), b.value * 10n ** BigInt(b.exp10 - exp), exp];
}

function cmp(a: Exact, b: Exact): bigint {
  const [x, y] = aligned(a, b);
  return x < y ? -1n : x > y ? 1n : 0n;
}

const MAX_INT64 = 2n ** 63n - 1n;
const MIN_INT64 = -(2n ** 63n);

/** Quantity.AsInt64: the value when it is a whole number within int64. */
function asInt64(q: Exact): bigint | undefined {
  if (q.exp10 < 0) return undefined;
  if (q.exp10 > 19) return undefined;
  const v = q.value * 10n ** BigInt(q.exp10);
  return v > MAX_INT64 || v < MIN_INT64 ? undefined : v;
}

function sum(a: Exact, b: Exact, sign: 1n | -1n): QuantityMessage {
  const [x, y, exp] = aligned(a, b);
  return toMessage({ value: x + sign * y, exp10: exp });
}

export const quantityLibrary: CelFunc[] = [
  celFunc('quantity', [STRING], QUANTITY, (text) => {
    const decimal = quantityDecimal(text);
    if (!decimal) throw new Error(quantityError(text) ?? 'invalid quantity');
    return toMessage(decimal);
  }),
  celFunc('isQuantity', [STRING], BOOL, (text) => quantityDecimal(text) !== undefined),
  // Declared as a function, not a method, in quantity.go.
  celFunc('sign', [QUANTITY], INT, (q) => {
    const { value } = exact(q);
    return value > 0n ? 1n : value < 0n ? -1n : 0n;
  }),
  celMethod('isGreaterThan', QUANTITY, [QUANTITY], BOOL, function (other) {
    return cmp(exact(this), exact(other)) === 1n;
  }),
  celMethod('isLessThan', QUANTITY, [QUANTITY], BOOL, function (other) {
    return cmp(exact(this), exact(other)) === -1n;
  }),
  celMethod('compareTo', QUANTITY, [QUANTITY], INT, function (other) {
    return cmp(exact(this), exact(other));
  }),
  celMethod('asApproximateFloat', QUANTITY, [], DOUBLE, function () {
    const { value, exp10 } = exact(this);
    return Number(value) * 10 ** exp10;
  }),
  celMethod('asInteger', QUANTITY, [], INT, function () {
    const v = asInt64(exact(this));
    if (v === undefined) throw new Error('cannot convert value to integer');
    return v;
  }),
  celMethod('isInteger', QUANTITY, [], BOOL, function () {
    return asInt64(exact(this)) !== undefined;
  }),
  celMethod('add', QUANTITY, [QUANTITY], QUANTITY, function (other) {
    return sum(exact(this), exact(other), 1n);
  }),
  celMethod('add', QUANTITY, [INT], QUANTITY, function (n) {
    return sum(exact(this), { value: n, exp10: 0 }, 1n);
  }),
  celMethod('sub', QUANTITY, [QUANTITY], QUANTITY, function (other) {
    return sum(exact(this), exact(other), -1n);
  }),
  celMethod('sub', QUANTITY, [INT], QUANTITY, function (n) {
    return sum(exact(this), { value: n, exp10: 0 }, -1n);
  }),
];
