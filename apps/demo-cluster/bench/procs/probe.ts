// Child process: the density benchmark's read probe. Cluster-scoped LISTs of all pods (no limit,
// no resourceVersion: a consistent read of the whole collection, the heaviest read a client
// makes) every `listEveryMs`, timed to the last byte; and single-object GETs of pods and nodes
// several times a second. The bodies are counted, not decoded: the probe measures the server.
import { Agent, request } from 'node:http';
import { serveParent } from '../../../../bench/proc.js';
import { podName, podNamespace } from './density-common.js';

let timers: ReturnType<typeof setTimeout>[] = [];
let running = false;
const lists: { ms: number; bytes: number }[] = [];
const gets: number[] = [];
const podBytes: number[] = [];
let errors = 0;
/** When the LIST in flight started, if one is. */
let listStarted: number | undefined;
/** GETs of a pod not created yet (the probe guesses which exist from the creation rate). */
let notFound = 0;

/** One GET, timed from the call to the last byte of the answer. */
function timedGet(
  agent: Agent,
  url: string,
): Promise<{ ms: number; bytes: number; status: number }> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(url, { agent, headers: { accept: 'application/json' } }, (res) => {
      let bytes = 0;
      res.on('data', (chunk: Buffer) => (bytes += chunk.length));
      res.on('end', () =>
        resolve({ ms: performance.now() - t0, bytes, status: res.statusCode ?? 0 }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

serveParent({
  start(args) {
    const { url, nodeNames, listEveryMs, getsPerSecond, created } = args as {
      url: string;
      nodeNames: string[];
      listEveryMs: number;
      getsPerSecond: number;
      /** Pods 0…created-1 exist from this wall time on, at `rate` per second: `[t0, rate]`. */
      created: [number, number];
    };
    running = true;
    const listAgent = new Agent({ keepAlive: true, maxSockets: 1 });
    const getAgent = new Agent({ keepAlive: true, maxSockets: 8 });
    const loopList = async () => {
      while (running) {
        const next = performance.now() + listEveryMs;
        listStarted = performance.now();
        try {
          const r = await timedGet(listAgent, `${url}/api/v1/pods`);
          if (r.status !== 200) errors++;
          else lists.push({ ms: r.ms, bytes: r.bytes });
        } catch {
          errors++;
        }
        listStarted = undefined;
        await new Promise((res) =>
          timers.push(setTimeout(res, Math.max(0, next - performance.now()))),
        );
      }
    };
    let g = 0;
    const getOne = async () => {
      if (!running) return;
      // Alternately a node and a pod created at least 2 s ago.
      const [t0, rate] = created;
      const existing = Math.floor(((Date.now() - t0) / 1000 - 2) * rate);
      const pod = existing > 0 && g % 2 === 1;
      const path = pod
        ? (() => {
            const i = Math.floor(Math.random() * existing);
            return `/api/v1/namespaces/${podNamespace(i)}/pods/${podName(i)}`;
          })()
        : `/api/v1/nodes/${nodeNames[g % nodeNames.length]}`;
      g++;
      try {
        const r = await timedGet(getAgent, `${url}${path}`);
        if (r.status === 404 && pod) notFound++;
        else if (r.status !== 200) errors++;
        else {
          gets.push(r.ms);
          if (pod) podBytes.push(r.bytes);
        }
      } catch {
        errors++;
      }
    };
    const tick = () => {
      if (!running) return;
      void getOne();
      timers.push(setTimeout(tick, 1000 / getsPerSecond));
    };
    void loopList();
    tick();
    return null;
  },
  stop() {
    running = false;
    // A LIST still unanswered counts with its time so far: leaving it out would hide the worst.
    if (listStarted !== undefined) lists.push({ ms: performance.now() - listStarted, bytes: 0 });
    for (const t of timers) clearTimeout(t);
    timers = [];
    return { lists, gets, podBytes, errors, notFound };
  },
});
