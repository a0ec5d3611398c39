import type { ServerResponse } from 'node:http';
import type { Http2ServerResponse } from 'node:http2';
import type { OpenWatch } from '../handlers/watch.js';

type Response = ServerResponse | Http2ServerResponse;

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
 * event already encoded once for all watchers. Backpressure stops reading from the watcher, whose
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
  try {
    for (;;) {
      const batch = await watcher.nextBatch();
      if (batch === null || closed) break;
      // Let the rest of a burst arrive (one macrotask), so it goes out as one write.
      await new Promise((resolve) => setImmediate(resolve));
      if (watcher.buffered > 0) {
        const more = await watcher.nextBatch();
        if (more) batch.push(...more);
      }
      const chunks: Uint8Array[] = [];
      for (const event of batch) {
        chunks.push(event.encoded.bytes(codec.format, watch.view(first)));
        first = false;
      }
      sent += batch.length;
      const ok = (res as ServerResponse).write(
        chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks),
      );
      if (!ok) await waitDrain(res);
    }
  } finally {
    res.off('close', onClose);
    watcher.end('closed');
    if (!closed) res.end();
    onEnd(sent);
  }
}
