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
 * Streams a watch over HTTP/1.1 (chunked) or an HTTP/2 stream: headers flushed at once so a
 * quiet watch never trips a client's header timeout, then one write per burst of events — every
 * event already encoded once for all watchers, a burst gathered while it keeps arriving. Backpressure stops reading from the watcher, whose
 * bounded buffer then ends the watch if the client stays slow.
 */
export async function serveHttpWatch(
  res: Response,
  watch: OpenWatch,
  onEnd: (events: number) => void,
): Promise<void> {
  const { watcher, codec } = watch;
  res.statusCode = 200;
  res.setHeader('Content-Type', codec.contentType);
  res.setHeader('Cache-Control', 'no-cache, private');
  if ('flushHeaders' in res && typeof res.flushHeaders === 'function') res.flushHeaders();
  else res.writeHead(200);
  let closed = false;
  const onClose = () => {
    closed = true;
    watcher.end('closed');
  };
  res.on('close', onClose);
  let first = true;
  let sent = 0;
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  const take = (batch: readonly { encoded: EncodedEvent }[]) => {
    for (const event of batch) {
      const chunk = watch.encodedOf(event).bytes(codec.format, watch.view(first));
      chunks.push(chunk);
      bytes += chunk.byteLength;
      first = false;
    }
    sent += batch.length;
  };
  try {
    let ended = false;
    while (!ended) {
      const batch = await watcher.nextBatch();
      if (batch === null || closed) break;
      take(batch);
      // Let the rest of a burst arrive: while events keep coming turn after turn of the event
      // loop (within COALESCE_MS and COALESCE_BYTES), they join this write.
      const until = performance.now() + COALESCE_MS;
      while (bytes < COALESCE_BYTES) {
        await new Promise((resolve) => setImmediate(resolve));
        if (closed || watcher.buffered === 0) break;
        const more = await watcher.nextBatch();
        if (more === null) ended = true;
        else take(more);
        if (ended || performance.now() >= until) break;
      }
      if (closed) break;
      const ok = (res as ServerResponse).write(joined(chunks, bytes));
      chunks.length = 0;
      bytes = 0;
      if (!ok) await waitDrain(res);
    }
  } finally {
    res.off('close', onClose);
    watcher.end('closed');
    if (!closed) res.end();
    onEnd(sent);
  }
}
