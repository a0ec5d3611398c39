import { ApiError } from './api-error.js';

// Go's time.ParseDuration and Duration.String, which kube-apiserver flags such as
// --etcd-compaction-interval use: `300ms`, `2s`, `5m`, `1h30m`, `1.5h`, `-2s`, `0`.
// Exact integer nanoseconds (BigInt) inside, milliseconds outside.

const NANOS: Record<string, bigint> = {
  ns: 1n,
  us: 1_000n,
  '\u00b5s': 1_000n, // µ (micro sign)
  '\u03bcs': 1_000n, // μ (Greek mu)
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
};

const MAX_NANOS = (1n << 63n) - 1n;

function invalid(text: string, why?: string): ApiError {
  return ApiError.badRequest(
    why
      ? `time: ${why} in duration ${JSON.stringify(text)}`
      : `time: invalid duration ${JSON.stringify(text)}`,
  );
}

function isDigit(c: string | undefined): boolean {
  return c !== undefined && c >= '0' && c <= '9';
}

/** Parses a Go duration into nanoseconds. Throws a 400 ApiError worded as Go's errors. */
export function parseDurationNanos(text: string): bigint {
  let s = text;
  let negative = false;
  if (s.startsWith('-') || s.startsWith('+')) {
    negative = s.startsWith('-');
    s = s.slice(1);
  }
  if (s === '0') return 0n;
  if (s === '') throw invalid(text);
  let total = 0n;
  while (s !== '') {
    let i = 0;
    while (isDigit(s[i])) i++;
    const whole = s.slice(0, i);
    let fraction = '';
    if (s[i] === '.') {
      const start = ++i;
      while (isDigit(s[i])) i++;
      fraction = s.slice(start, i);
    }
    if (whole === '' && fraction === '') throw invalid(text);
    let u = i;
    while (u < s.length && s[u] !== '.' && !isDigit(s[u])) u++;
    const unitText = s.slice(i, u);
    if (unitText === '') throw invalid(text, 'missing unit');
    const unit = NANOS[unitText];
    if (unit === undefined) throw invalid(text, `unknown unit ${JSON.stringify(unitText)}`);
    // Go truncates fractions below one nanosecond.
    const value =
      BigInt(whole === '' ? '0' : whole) * unit +
      (fraction === '' ? 0n : (BigInt(fraction) * unit) / 10n ** BigInt(fraction.length));
    total += value;
    if (total > MAX_NANOS) throw invalid(text);
    s = s.slice(u);
  }
  return negative ? -total : total;
}

/** Parses a Go duration (`1h30m`, `300ms`) into milliseconds. */
export function parseDuration(text: string): number {
  return Number(parseDurationNanos(text)) / 1e6;
}

function fractionText(value: bigint, digits: number): string {
  const scale = 10n ** BigInt(digits);
  const whole = value / scale;
  const rest = (value % scale).toString().padStart(digits, '0').replace(/0+$/, '');
  return rest === '' ? whole.toString() : `${whole}.${rest}`;
}

/** Formats nanoseconds as Go's Duration.String does (`1h30m0s`, `1.5ms`, `0s`). */
export function formatDurationNanos(nanos: bigint): string {
  if (nanos === 0n) return '0s';
  const sign = nanos < 0n ? '-' : '';
  const n = nanos < 0n ? -nanos : nanos;
  if (n < 1_000n) return `${sign}${n}ns`;
  if (n < 1_000_000n) return `${sign}${fractionText(n, 3)}\u00b5s`;
  if (n < 1_000_000_000n) return `${sign}${fractionText(n, 6)}ms`;
  const hours = n / NANOS['h']!;
  const minutes = (n % NANOS['h']!) / NANOS['m']!;
  const seconds = fractionText(n % NANOS['m']!, 9);
  if (hours > 0n) return `${sign}${hours}h${minutes}m${seconds}s`;
  if (minutes > 0n) return `${sign}${minutes}m${seconds}s`;
  return `${sign}${seconds}s`;
}

/** Formats milliseconds as Go's Duration.String does. */
export function formatDuration(ms: number): string {
  return formatDurationNanos(BigInt(Math.round(ms * 1e6)));
}
