// Child process: many watch clients of one server, over HTTP/1.1, HTTP/2 (h2c, N connections ×
// M streams) or WebSocket. Counts events per watcher (newline frames, CBOR items, or WebSocket messages);
// a sample of watchers also reads the send time the writer put in each Pod (an annotation) to
// measure write→receive latency. Stalled watchers open a watch and never read it.
import { request, Agent, type ClientRequest, type IncomingMessage } from 'node:http';
import { connect, type ClientHttp2Session } from 'node:http2';
import { CBOR_SEQUENCE, createWatchDecoder } from '@listwatch/codec';
import WebSocket from 'ws';
import { serveParent, wallMs } from '../../../../bench/proc.js';
import { CborItemScanner } from '../../../codec/src/cbor-scanner.js';
import { SENT_ANNOTATION } from './pods.js';

type Transport = 'http1' | 'h2' | 'ws';

/** HTTP/2 receive windows as the client raises them (16 MiB), or node's defaults (64 KiB). */
const RAISED_WINDOW = 16 * 2 ** 20;

interface Watcher {
  /** CBOR, a sampled watcher: decodes the stream to count events and read send times. */
  cbor?: ReturnType<typeof createWatchDecoder>;
  /** CBOR, the others: count the items, as JSON watchers count lines, without decoding them. */
  cborItems?: CborItemScanner;
  lines: number;
  target: number;
  sample: boolean;
  close(): void;
}

const SENT_KEY = Buffer.from(`"${SENT_ANNOTATION}":"`);
let watchers: Watcher[] = [];
const stalled: (() => void)[] = [];
const sessions: ClientHttp2Session[] = [];
let agent: Agent | undefined;
let latencies: number[] = [];
let bytes = 0;
let lastAt = 0;
let waiting: { resolve(): void; reject(e: Error): void } | undefined;

/** A watch the server ended while it was still expected to deliver: the wait fails at once. */
function ended(w: Watcher, why: string): void {
  if (w.lines < w.target)
    waiting?.reject(new Error(`a watch ended after ${w.lines} events: ${why}`));
}
let outstanding = 0;
let armed = 0;

function received(w: Watcher, chunk: Buffer, frames: number): void {
  bytes += chunk.length;
  const now = wallMs();
  if (w.cbor) {
    const events = w.cbor.push(chunk);
    frames = events.length;
    if (w.sample)
      for (const e of events) {
        const sent = Number(
          (e.object as { metadata?: { annotations?: Record<string, string> } }).metadata
            ?.annotations?.[SENT_ANNOTATION],
        );
        if (Number.isFinite(sent)) latencies.push(now - sent);
      }
  } else if (w.cborItems) {
    frames = 0;
    for (let at = 0; at < chunk.length; frames++) {
      at = w.cborItems.scan(chunk, at, chunk.length, 0);
      if (at < 0) break;
    }
  } else if (w.sample) {
    for (let at = chunk.indexOf(SENT_KEY); at !== -1; at = chunk.indexOf(SENT_KEY, at + 1)) {
      const start = at + SENT_KEY.length;
      const sent = Number(chunk.toString('latin1', start, chunk.indexOf(34, start)));
      if (Number.isFinite(sent)) latencies.push(now - sent);
    }
  }
  const before = w.lines;
  w.lines += frames;
  if (before < w.target && w.lines >= w.target) {
    lastAt = now;
    if (--outstanding === 0) waiting?.resolve();
  }
}

const newlines = (chunk: Buffer) => {
  let n = 0;
  for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) n++;
  return n;
};

function openHttp1(
  url: string,
  path: string,
  w: Watcher,
  stall: boolean,
  accept = 'application/json',
): Promise<void> {
  return new Promise((resolve, reject) => {
    const options = { agent: agent!, headers: { accept } };
    const req: ClientRequest = request(`${url}${path}`, options, (res: IncomingMessage) => {
      if (res.statusCode !== 200) return reject(new Error(`watch answered ${res.statusCode}`));
      resolve();
      if (stall) return res.pause();
      res.on('data', (chunk: Buffer) => received(w, chunk, newlines(chunk)));
      res.on('end', () => ended(w, 'the response ended'));
      res.on('error', () => {});
    });
    req.on('error', (e) => (stall ? undefined : reject(e)));
    w.close = () => req.destroy();
    req.end();
  });
}

function openH2(session: ClientHttp2Session, path: string, w: Watcher): Promise<void> {
  return new Promise((resolve, reject) => {
    const stream = session.request({ ':path': path, accept: 'application/json' });
    stream.on('response', (headers) => {
      if (headers[':status'] !== 200) reject(new Error(`watch answered ${headers[':status']}`));
      else resolve();
    });
    stream.on('data', (chunk: Buffer) => received(w, chunk, newlines(chunk)));
    stream.on('error', reject);
    w.close = () => stream.close();
  });
}

function openWs(url: string, path: string, w: Watcher): Promise<void> {
  return new Promise((resolve, reject) => {
    // The apiserver requires an Origin on WebSocket watches, as kube's does.
    const ws = new WebSocket(`${url.replace(/^http/, 'ws')}${path}`, { origin: url });
    ws.on('open', () => resolve());
    ws.on('message', (data: Buffer) => received(w, data, 1));
    ws.on('error', reject);
    w.close = () => ws.terminate();
  });
}

serveParent({
  /** Opens `count` watchers of `path`; `sample` of them measure latency. */
  async open(args) {
    const { url, path, count, sample, transport, connections, cbor, h2Window } = args as {
      url: string;
      path: string;
      count: number;
      sample: number;
      transport: Transport;
      connections?: number;
      cbor?: boolean;
      /** HTTP/2: raise the receive windows (default true). */
      h2Window?: boolean;
    };
    agent ??= new Agent({ keepAlive: true, maxSockets: Infinity });
    const every = Math.max(1, Math.floor(count / Math.max(1, sample)));
    const opened: Promise<void>[] = [];
    const h2: ClientHttp2Session[] = [];
    if (transport === 'h2')
      for (let c = 0; c < (connections ?? 1); c++) {
        const raised = h2Window !== false;
        const session = connect(
          url,
          raised ? { settings: { initialWindowSize: RAISED_WINDOW } } : {},
        );
        if (raised) session.on('connect', () => session.setLocalWindowSize(RAISED_WINDOW));
        session.on('error', () => {});
        h2.push(session);
        sessions.push(session);
      }
    for (let i = 0; i < count; i++) {
      const w: Watcher = { lines: 0, target: 0, sample: i % every === 0, close() {} };
      if (cbor && w.sample) w.cbor = createWatchDecoder(CBOR_SEQUENCE);
      else if (cbor) w.cborItems = new CborItemScanner();
      watchers.push(w);
      opened.push(
        transport === 'h2'
          ? openH2(h2[i % h2.length]!, path, w)
          : transport === 'ws'
            ? openWs(url, path, w)
            : openHttp1(url, path, w, false, cbor ? 'application/cbor-seq' : undefined),
      );
      // Opening thousands at once only measures the accept queue.
      if (i % 200 === 199) await Promise.all(opened.slice(-200));
    }
    await Promise.all(opened);
    return { open: watchers.length };
  },
  /** Opens `count` watchers that never read: the server's buffers fill and it must cut them. */
  async stall(args) {
    const { url, path, count } = args as { url: string; path: string; count: number };
    agent ??= new Agent({ keepAlive: true, maxSockets: Infinity });
    const opened: Promise<void>[] = [];
    for (let i = 0; i < count; i++) {
      const w: Watcher = { lines: 0, target: 0, sample: false, close() {} };
      opened.push(openHttp1(url, path, w, true));
      stalled.push(() => w.close());
    }
    await Promise.all(opened);
    return { stalled: count };
  },
  /** From now on, each watcher is waiting for `events` more events (before the writes start). */
  arm(args) {
    const { events } = args as { events: number };
    latencies = [];
    bytes = 0;
    outstanding = 0;
    for (const w of watchers) {
      w.target = w.lines + events;
      if (w.lines < w.target) outstanding++;
    }
    armed = events;
    return { armed: watchers.length };
  },
  /** Resolves once every watcher has received the events armed for. */
  async wait(args) {
    const { timeoutMs } = args as { timeoutMs?: number };
    const events = armed;
    if (outstanding === 0) return { lastAt, latencies, bytes, delivered: watchers.length * events };
    const done = new Promise<void>((resolve, reject) => (waiting = { resolve, reject }));
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`${outstanding} watchers still waiting after ${timeoutMs} ms`)),
        timeoutMs ?? 60_000,
      );
    });
    await Promise.race([done, timeout]).finally(() => clearTimeout(timer));
    return { lastAt, latencies, bytes, delivered: watchers.length * events };
  },
  close() {
    for (const w of watchers) w.close();
    for (const s of stalled) s();
    for (const s of sessions) s.destroy();
    watchers = [];
    stalled.length = 0;
    sessions.length = 0;
    agent?.destroy();
    agent = undefined;
  },
});
