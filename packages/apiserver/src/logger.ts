import { jsonLineLogger, type Logger, type LogLevel } from '@listwatch/api';

export type { LogLevel } from '@listwatch/api';

/**
 * The apiserver's log: @listwatch/api's JSON lines (`{"ts","level","msg",...fields}`, redacted)
 * at or above `level`, each handed to `write` with its newline (stderr by default).
 */
export function jsonLogger(
  level: LogLevel = 'info',
  write: (line: string) => void = (l) => process.stderr.write(l),
): Logger {
  return jsonLineLogger({ level, write: (line) => write(`${line}\n`) });
}
