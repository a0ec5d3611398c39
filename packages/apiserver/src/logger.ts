import type { Logger } from '@listwatch/storage';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
const ORDER: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3 };

/** Field names whose values never reach a log line. */
const SECRET = /authorization|token|password|secret|key|cert/i;

function redact(fields: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(fields)) out[k] = SECRET.test(k) ? '[redacted]' : v;
  return out;
}

/** Structured JSON lines on stderr: `{"ts","level","msg",...fields}`. */
export function jsonLogger(
  level: LogLevel = 'info',
  write: (line: string) => void = (l) => process.stderr.write(l),
): Logger {
  const at =
    (lvl: LogLevel) =>
    (message: string, fields: Record<string, unknown> = {}) => {
      if (ORDER[lvl] < ORDER[level]) return;
      write(
        `${JSON.stringify({ ts: new Date().toISOString(), level: lvl, msg: message, ...redact(fields) })}\n`,
      );
    };
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}
