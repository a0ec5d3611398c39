import type { ServerResponse } from 'node:http';
import type { Http2ServerResponse } from 'node:http2';
import type { Socket } from 'node:net';
import type { OpenWatch } from '../handlers/watch.js';

/** How long a write waits for more of a burst (ms), unless writing takes longer (see BurstWriter). */
const COALESCE_MS = 5;
const MAX_COALESCE_MS = 100;
/** How much of a burst a write gathers, at most. */
const COALESCE_BYTES = 256 * 1024;

type Response = ServerResponse | Http2ServerResponse;

/**
 * The last burst written, as the body of one write and as a whole HTTP/1.1 chunk (size line,
 * body, CRLF). The watchers of a resource mostly get the same events in the same bursts, each
 * event's bytes the same shared array (encoded once): they then share the burst's bytes and its
 * chunk frame too, as they share the events, instead of copying and framing it per watcher.
 */
interface Burst {
  parts: Uint8Array[];
  bytes: number;
  /** How many responses wrote it. */
  uses: number;
  chunk?: Buffer;
  body?: Uint8Array;
}
let lastBurst: Burst | undefined;

function burstOf(parts: Uint8Array[], bytes: number): Burst {
  const last = lastBurst;
  if (last && sameParts(last.parts, parts)) return last;
  return (lastBurst = { parts, bytes, uses: 0 });
}

/** Whether two bursts are the same events; a plain loop, run for every response of a round. */
function sameParts(a: Uint8Array[], b: Uint8Array[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = a.length - 1; i >= 0; i--) if (a[i] !== b[i]) return false;
  return true;
}

const chunkHead = (burst: Burst) => `${burst.bytes.toString(16)}\r\n`;
const CRLF = Buffer.from('\r\n', 'latin1');

function chunkOf(burst: Burst): Buffer {
  if (burst.chunk) return burst.chunk;
  const head = chunkHead(burst);
  const chunk = Buffer.allocUnsafe(head.length + burst.bytes + 2);
  let at = chunk.write(head, 0, 'latin1');
  for (const part of burst.parts) {
    chunk.set(part, at);
    at += part.byteLength;
  }
  burst.body = chunk.subarray(head.length, at);
  chunk.write('\r\n', at, 'latin1');
  return (burst.chunk = chunk);
}

function bodyOf(burst: Burst): Uint8Array {
  if (burst.body) return burst.body;
  if (burst.parts.length === 1) return burst.parts[0]!;
  chunkOf(burst);
  return burst.body!;
}

/**
 * Writes a burst as one HTTP/1.1 chunk. Its first writer sends the parts as they are (one writev,
 * nothing copied): a burst of this watcher's own (its own encodings, or events no other watcher
 * gets) is never copied. From its second writer on, the chunk is framed once and shared.
 */
function sendChunk(socket: Socket, burst: Burst): boolean {
  if (burst.chunk || ++burst.uses > 1) return socket.write(chunkOf(burst));
  socket.cork();
  socket.write(chunkHead(burst), 'latin1');
  for (const part of burst.parts) socket.write(part);
  const ok = socket.write(CRLF);
  socket.uncork();
  return ok;
}

/**
 * Each response's stream, for listeners shared by all responses (an idle watch should hold no
 * closures of its own); EventEmitter calls a listener with the emitter as `this`.
 */
const streamOf = new WeakMap<Response, WatchStream>();
function onResponseClose(this: Response): void {
  streamOf.get(this)?.clientClosed();
}
function onResponseDrain(this: Response): void {
  streamOf.get(this)?.drained();
}

/**
 * One HTTP watch response. Each event its watcher queues is taken at once (as bytes, encoded once
 * for all watchers) and written with the rest of its burst in one write. While the response waits
 * for 'drain' nothing is taken: the watcher's bounded buffer then ends the watch if the client
 * stays slow.
 */
class WatchStream {
  private first = true;
  private sent = 0;
  private closed = false;
  private draining = false;
  private done = false;
  private error: Error | undefined;
  /** The socket whose 'drain' is awaited, after a write straight to it, and its listener. */
  private socket: Socket | undefined;
  private onSocketDrain: (() => void) | undefined;
  private chunks: Uint8Array[] = [];
  /** Bytes taken and not yet written. */
  bytes = 0;

  constructor(
    private readonly res: Response,
    private readonly watch: OpenWatch,
    private readonly finished: (events: number, error?: Error) => void,
  ) {
    streamOf.set(res, this);
    res.on('close', onResponseClose);
    res.on('drain', onResponseDrain);
  }

  /** The watcher's listener: runs in the cache's dispatch, so it only takes and never throws. */
  readonly onEvents = (): void => {
    if (this.done) return;
    this.collect();
    bursts.mark(this);
  };

  /** The client went away. */
  clientClosed(): void {
    this.closed = true;
    this.watch.watcher.end('closed');
  }

  /** The response, or the socket written straight to, can take more. */
  drained(): void {
    this.draining = false;
    bursts.mark(this);
  }

  private collect(): void {
    if (this.draining || this.closed || this.error !== undefined) return;
    const { watch } = this;
    try {
      const batch = watch.watcher.take();
      if (!batch) return;
      const format = watch.codec.format;
      for (const event of batch) {
        const chunk = watch.encodedOf(event).bytes(format, watch.view(this.first));
        this.first = false;
        this.chunks.push(chunk);
        this.bytes += chunk.byteLength;
      }
      this.sent += batch.length;
    } catch (error) {
      this.error =
        error instanceof Error
          ? error
          : new Error('encoding a watch event failed', { cause: error });
    }
  }

  /** Writes what was taken as one chunk; ends the response once the watcher has ended. */
  flush(): void {
    if (this.done) return;
    if (this.error !== undefined) return this.finish(this.error);
    if (this.draining) return;
    this.collect();
    const { chunks, watch } = this;
    if (chunks.length > 0 && !this.closed) {
      this.chunks = [];
      const bytes = this.bytes;
      this.bytes = 0;
      if (bytes > 0 && !this.write(burstOf(chunks, bytes))) this.draining = true;
    }
    if (this.closed || (watch.watcher.endReason !== undefined && watch.watcher.buffered === 0))
      if (!this.draining || this.closed) this.finish();
  }

  /**
   * One write. HTTP/1.1 chunked with nothing held back by the response (its headers went out):
   * the shared chunk straight to the socket, framed once for every watcher. Otherwise through the
   * response, handed to the socket now rather than on the next tick (HTTP/1.1 corks the socket
   * for a tick by itself), so that the BurstWriter times the writes.
   */
  private write(burst: Burst): boolean {
    if ('stream' in this.res) return this.res.write(bodyOf(burst));
    const res = this.res;
    const socket = res.socket;
    if (!socket) return res.write(bodyOf(burst));
    if (res.chunkedEncoding && res.writableLength === socket.writableLength) {
      if (sendChunk(socket, burst)) return true;
      this.socket = socket;
      this.onSocketDrain ??= () => this.drained();
      socket.once('drain', this.onSocketDrain);
      return false;
    }
    if (socket.writableCorked) return res.write(bodyOf(burst));
    socket.cork();
    const ok = res.write(bodyOf(burst));
    socket.uncork();
    return ok;
  }

  private finish(error?: Error): void {
    if (this.done) return;
    this.done = true;
    this.res.off('close', onResponseClose);
    this.res.off('drain', onResponseDrain);
    if (this.onSocketDrain) this.socket?.off('drain', this.onSocketDrain);
    this.watch.watcher.end('closed');
    if (!this.closed) this.res.end();
    this.finished(this.sent, error);
  }
}

/**
 * Gathers the writes of every HTTP watch stream of the process, so that a burst of events goes
 * out in one write per stream rather than one per event (kube's watch server flushes only when
 * its channel is empty). One check per turn of the event loop for all streams: while events keep
 * arriving turn after turn the writes wait, for up to COALESCE_MS after the first or twice as
 * long as the last round of writes took (so that writing takes at most about a third of the
 * time, however many watchers there are; at most MAX_COALESCE_MS), and until a stream has
 * gathered COALESCE_BYTES; then every stream with events writes them. An event alone (a turn
 * passes without another) is written on the next turn.
 */
class BurstWriter {
  private readonly dirty = new Set<WatchStream>();
  private scheduled = false;
  private more = false;
  private full = false;
  private since = 0;
  private lastWrites = 0;

  mark(stream: WatchStream): void {
    this.dirty.add(stream);
    if (stream.bytes >= COALESCE_BYTES) this.full = true;
    if (this.scheduled) {
      this.more = true;
      return;
    }
    this.scheduled = true;
    this.more = false;
    this.since = performance.now();
    setImmediate(this.turn);
  }

  private readonly turn = (): void => {
    const now = performance.now();
    const window = Math.min(MAX_COALESCE_MS, Math.max(COALESCE_MS, 2 * this.lastWrites));
    if (this.more && !this.full && now - this.since < window) {
      this.more = false;
      setImmediate(this.turn);
      return;
    }
    this.scheduled = false;
    this.full = false;
    const streams = [...this.dirty];
    this.dirty.clear();
    for (const stream of streams) stream.flush();
    this.lastWrites = performance.now() - now;
  };
}

const bursts = new BurstWriter();

/**
 * Streams a watch over HTTP/1.1 (chunked) or an HTTP/2 stream: headers flushed at once so a
 * quiet watch never trips a client's header timeout, then one write per burst of events, every
 * event already encoded once for all watchers. Resolves when the watch has ended.
 */
export function serveHttpWatch(
  res: Response,
  watch: OpenWatch,
  onEnd: (events: number) => void,
): Promise<void> {
  res.statusCode = 200;
  res.setHeader('Content-Type', watch.codec.contentType);
  res.setHeader('Cache-Control', 'no-cache, private');
  if ('flushHeaders' in res && typeof res.flushHeaders === 'function') res.flushHeaders();
  else res.writeHead(200);
  return new Promise((resolve, reject) => {
    const stream = new WatchStream(res, watch, (events, error) => {
      onEnd(events);
      if (error === undefined) resolve();
      else reject(error);
    });
    watch.watcher.listen(stream.onEvents);
  });
}
