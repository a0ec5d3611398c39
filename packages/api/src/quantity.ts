// resource.Quantity (k8s.io/apimachinery pkg/api/resource/quantity.go): its parser's errors,
// its canonical form and its comparison.

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
