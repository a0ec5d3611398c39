/**
 * Structured logging: a message plus fields, one JSON line each. The client logs what a reader
 * of a stuck informer needs (resource, resourceVersion, error, backoff) and never credentials:
 * tokens, passwords and keys stay out of every field.
 */
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

/**
 * JSON lines (`{"level","time","msg",...fields}`) written to `write`, stderr by default, at or
 * above `level` (default `warn`, so a library stays quiet unless something goes wrong).
 */
export function jsonLineLogger(
  options: { level?: LogLevel; write?: (line: string) => void; name?: string } = {},
): Logger {
  const min = LEVELS.indexOf(options.level ?? 'warn');
  const write = options.write ?? ((line: string) => void process.stderr.write(`${line}\n`));
  const log =
    (level: LogLevel) =>
    (msg: string, fields?: Record<string, unknown>): void => {
      if (LEVELS.indexOf(level) < min) return;
      const record: Record<string, unknown> = {
        level,
        time: new Date().toISOString(),
        ...(options.name !== undefined ? { logger: options.name } : {}),
        msg,
        ...fields,
      };
      write(JSON.stringify(record, errorReplacer));
    };
  return { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') };
}

/** Errors serialize as their message (JSON.stringify would print `{}`). */
function errorReplacer(_key: string, value: unknown): unknown {
  return value instanceof Error ? value.message : value;
}

/** An error as a log field: its message only, never a stack with request options in it. */
export function errorField(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
