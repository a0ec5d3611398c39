import type { ServerResponse } from 'node:http';
import type { Http2ServerResponse } from 'node:http2';
import type { EncodedEvent } from '@listwatch/codec';
import type { OpenWatch } from '../handlers/watch.js';

/** How long a write waits for more of a burst, at most (ms), and how much it gathers. */
const COALESCE_MS = 5;
const COALESCE_BYTES = 256 * 1024;

type Response = ServerResponse | Http2ServerResponse;

/**
 * The last burst joined into one buffer. The watchers of a resource mostly get the same events in
 * the same bursts, each event's bytes the same shared array (encoded once): they then share the
 * joined buffer too, as they share the events, instead of copying the burst once per watcher.
 */
let lastJoined: { parts: Uint8Array[]; joined: Buffer } | undefined;

function joined(parts: Uint8Array[], bytes: number): Uint8Array {
  if (parts.length === 1) return parts[0]!;
  const last = lastJoined;
  if (last && last.parts.length === parts.length && last.parts.every((p, i) => p === parts[i]))
    return last.joined;
  const buffer = Buffer.concat(parts, bytes);
  lastJoined = { parts: [...parts], joined: buffer };
  return buffer;
}

function waitDrain(res: Response): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/**
 * One watch stream's state. It lives as long as the watch: fields and prototype methods, one
 * bound listener, no closures of its own (an idle watch should hold little).
 */
class HttpWatchStream {
  private closed = false;
  private first = true;
  private sent = 0;
  private readonly chunks: Uint8Array[] = [];
  private bytes = 0;
  private readonly onClose = this.close.bind(this);

  constructor(
    private readonly res: Response,
    private readonly watch: OpenWatch,
  ) {}

  private close(): void {
    this.closed = true;
    this.watch.watcher.end('closed');
  }

  private take(batch: readonly { encoded: EncodedEvent }[]): void {
    const { watch } = this;
    for (const event of batch) {
      const chunk = watch.encodedOf(event).bytes(watch.codec.format, watch.view(this.first));
      this.chunks.push(chunk);
      this.bytes += chunk.byteLength;
      this.first = false;
    }
    this.sent += batch.length;
  }

  async serve(onEnd: (events: number) => void): Promise<void> {
    const { res, watch } = this;
    const { watcher, codec } = watch;
    res.statusCode = 200;
    res.setHeader('Content-Type', codec.contentType);
    res.setHeader('Cache-Control', 'no-cache, private');
    if ('flushHeaders' in res && typeof res.flushHeaders === 'function') res.flushHeaders();
    else res.writeHead(200);
    res.on('close', this.onClose);
    try {
      let ended = false;
      while (!ended) {
        const batch = await watcher.nextBatch();
        if (batch === null || this.closed) break;
        this.take(batch);
        // Let the rest of a burst arrive: while events keep coming turn after turn of the event
        // loop (within COALESCE_MS and COALESCE_BYTES), they join this write.
        const until = performance.now() + COALESCE_MS;
        while (this.bytes < COALESCE_BYTES) {
          await new Promise((resolve) => setImmediate(resolve));
          if (this.closed || watcher.buffered === 0) break;
          const more = await watcher.nextBatch();
          if (more === null) ended = true;
          else this.take(more);
          if (ended || performance.now() >= until) break;
        }
        if (this.closed) break;
        const ok = (res as ServerResponse).write(joined(this.chunks, this.bytes));
        this.chunks.length = 0;
        this.bytes = 0;
        if (!ok) await waitDrain(res);
      }
    } finally {
      res.off('close', this.onClose);
      watcher.end('closed');
      if (!this.closed) res.end();
      onEnd(this.sent);
    }
  }
}

/**
 * Streams a watch over HTTP/1.1 (chunked) or an HTTP/2 stream: headers flushed at once so a
 * quiet watch never trips a client's header timeout, then one write per burst of events — every
 * event already encoded once for all watchers, a burst gathered while it keeps arriving.
 * Backpressure stops reading from the watcher, whose bounded buffer then ends the watch if the
 * client stays slow.
 */
export function serveHttpWatch(
  res: Response,
  watch: OpenWatch,
  onEnd: (events: number) => void,
): Promise<void> {
  return new HttpWatchStream(res, watch).serve(onEnd);
}
