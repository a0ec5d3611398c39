// Structured logging for every package: one Logger (klog's structured calls, InfoS and ErrorS: a
// message and key/value fields), one redaction rule, one JSON-lines format. Credentials and
// Secret data never reach a line, whichever package logs.

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

export type LogLevel = keyof Logger;

const LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error'];

const noop = (): void => {};

/** Discards everything. */
export const silentLogger: Logger = { debug: noop, info: noop, warn: noop, error: noop };

/** What a redacted value becomes. */
export const REDACTED = '[redacted]';

/**
 * Field names whose values are credentials, at any depth: Authorization headers, tokens,
 * passwords, cookies, client secrets and private keys (kubeconfig's client-key-data). Not every
 * name with "key" in it: a work-queue key or a storage key is what a reader needs.
 */
const SECRET_FIELD =
  /authorization|token|passw(?:or)?d|secret|cookie|credential|(?:private|client|signing|api)[-_.]?key|key[-_.]?data/i;

/** Credentials inside free text (an error quoting a header or a URL): the scheme stays. */
const SECRET_TEXT: readonly [RegExp, string][] = [
  [/\b(bearer|basic)\s+[\w\-.~+/]+=*/gi, `$1 ${REDACTED}`],
  [/(\/\/)[^\s/@:]+:[^\s/@]+@/g, `$1${REDACTED}@`],
  [/-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)/g, REDACTED],
];

function redactText(text: string): string {
  let out = text;
  for (const [pattern, replacement] of SECRET_TEXT) out = out.replace(pattern, replacement);
  return out;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/** Where a value sits: a Secret's data never reaches a line (kube's field errors do the same). */
type Within = 'object' | 'secret-list';

function redactValue(value: unknown, seen: WeakSet<object>, within: Within): unknown {
  if (typeof value === 'string') return redactText(value);
  // An error is its message: a stack or cause may carry request options.
  if (value instanceof Error) return redactText(value.message);
  if (typeof value === 'bigint') return value.toString();
  if (typeof value !== 'object' || value === null) return value;
  if (seen.has(value)) return '[circular]';
  seen.add(value);
  try {
    if (Array.isArray(value)) return value.map((item) => redactValue(item, seen, within));
    if (!isPlainObject(value)) return value;
    // A SecretList's items may leave out their kind.
    const secret = value['kind'] === 'Secret' || within === 'secret-list';
    const list = value['kind'] === 'SecretList';
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      const hidden = SECRET_FIELD.test(key) || (secret && (key === 'data' || key === 'stringData'));
      const next: Within = list && key === 'items' ? 'secret-list' : 'object';
      out[key] = hidden ? REDACTED : redactValue(item, seen, next);
    }
    return out;
  } finally {
    seen.delete(value);
  }
}

/**
 * The fields as they may be logged: credential fields and a Secret's data become `[redacted]`
 * at any depth, credentials in text (`Bearer …`, `user:password@`, PEM private keys) too, and
 * errors their message. `fields` is not changed.
 */
export function redact(fields: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return redactValue(fields, new WeakSet(), 'object') as Record<string, unknown>;
}

export interface JsonLineLoggerOptions {
  /** The lowest level written (default `warn`, so a library stays quiet unless something fails). */
  level?: LogLevel;
  /** Takes each line without its newline; default: stderr, one line each. */
  write?: (line: string) => void;
  /** Written as `logger`, to tell components apart. */
  name?: string;
}

/**
 * JSON lines `{"ts","level","logger"?,"msg",...fields}` (`ts` an RFC 3339 time, as klog's JSON
 * format names it), fields redacted.
 */
export function jsonLineLogger(options: JsonLineLoggerOptions = {}): Logger {
  const min = LEVELS.indexOf(options.level ?? 'warn');
  const write = options.write ?? writeLine;
  const log =
    (level: LogLevel) =>
    (message: string, fields: Record<string, unknown> = {}): void => {
      if (LEVELS.indexOf(level) < min) return;
      write(
        JSON.stringify({
          ts: new Date().toISOString(),
          level,
          ...(options.name !== undefined ? { logger: options.name } : {}),
          msg: redactText(message),
          ...redact(fields),
        }),
      );
    };
  return { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') };
}

/** An error as a log field: its message only, never a stack with request options in it. */
export function errorField(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** A line to stderr; in a browser (no process), to the console. */
function writeLine(line: string): void {
  if (typeof process !== 'undefined' && process.stderr) process.stderr.write(`${line}\n`);
  else console.error(line);
}
