// metav1.Time and metav1.MicroTime as JSON carries them (k8s.io/apimachinery
// pkg/apis/meta/v1/time.go and micro_time.go): RFC 3339 in UTC, Time in whole seconds, MicroTime
// with six fraction digits; time.Parse for their two layouts, with Go's error wording. Every
// timestamp the server or a controller writes is made here (metav1.Now()).

/** time.RFC3339: metav1.Time's layout. */
export const RFC3339 = '2006-01-02T15:04:05Z07:00';
/** metav1.RFC3339Micro: metav1.MicroTime's layout. */
export const RFC3339_MICRO = '2006-01-02T15:04:05.000000Z07:00';

export interface ParsedTime {
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
export function formatRfc3339(time: ParsedTime, micro: boolean): string {
  const iso = new Date(time.ms).toISOString(); // yyyy-mm-ddThh:mm:ss.sssZ
  const seconds = iso.slice(0, 19);
  if (!micro) return `${seconds}Z`;
  return `${seconds}.${iso.slice(20, 23)}${String(time.micros).padStart(3, '0')}Z`;
}

/** metav1.NewTime(t) as JSON: the instant `ms`, truncated to whole seconds (Time.MarshalJSON). */
export function metaV1Time(ms: number): string {
  return formatRfc3339({ ms, micros: 0 }, false);
}

/** metav1.Now() as JSON: what creationTimestamp, deletionTimestamp and conditions carry. */
export function metaV1Now(): string {
  return metaV1Time(Date.now());
}

/** metav1.NewMicroTime(t) as JSON, to the millisecond `ms` holds (MicroTime.MarshalJSON). */
export function metaV1MicroTime(ms: number): string {
  return formatRfc3339({ ms, micros: 0 }, true);
}
