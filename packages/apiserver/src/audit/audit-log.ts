import { closeSync, openSync, writeSync } from 'node:fs';
import type { AuditEvent } from './audit-event.js';

/** Where audit events go; false when one could not be stored. */
export interface AuditSink {
  process(event: AuditEvent): boolean;
  close(): void;
}

/**
 * `--audit-log-path`: one JSON line per event (the log backend's json format), written before
 * the request goes on (`--audit-log-mode=blocking`), so no request is served unaudited. `-` is
 * standard output; a file is created 0600 and appended to. JSON.stringify escapes every control
 * character and lone surrogate, so no request can break a line.
 */
export class FileAuditLog implements AuditSink {
  private fd: number | undefined;
  private readonly owned: boolean;

  constructor(
    readonly path: string,
    private readonly onError: (error: unknown) => void = () => undefined,
  ) {
    this.owned = path !== '-';
    this.fd = this.owned ? openSync(path, 'a', 0o600) : 1;
  }

  process(event: AuditEvent): boolean {
    if (this.fd === undefined) return false;
    const line = Buffer.from(`${JSON.stringify(event)}\n`);
    try {
      for (let written = 0; written < line.length;)
        written += writeSync(this.fd, line, written, line.length - written);
      return true;
    } catch (error) {
      this.onError(error);
      return false;
    }
  }

  close(): void {
    if (this.owned && this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}
