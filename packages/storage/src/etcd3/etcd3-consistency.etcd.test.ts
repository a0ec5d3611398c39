import { findBuiltinResource, type KubeObject } from '@listwatch/api';
import { EtcdCluster, seededRandom, testSeed, type SeededRandom } from '@listwatch/testing';
import { Etcd3 } from 'etcd3';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Cacher } from '../cacher/cacher.js';
import type { Revision, StorageEvent, StorageWatch } from '../storage.js';
import { isStorageError } from '../storage-error.js';
import { Etcd3Storage } from './etcd3-storage.js';

// A randomized check of the etcd3 backend's watches and the watch cache's consistent reads
// against etcd's own history: several clients write at once, watchers start at random revisions
// on random prefixes and ask for progress at random times, consistent LISTs come from the cache
// meanwhile. Every watcher must see exactly etcd's events for its prefix after its start, in
// order, and never an event at or below a PROGRESS it was given (etcd's watch guarantees, as
// etcd-io/etcd tests/robustness/validate/watch.go checks them); every consistent LIST must equal
// etcd's state at the revision it names. Replay a run with LISTWATCH_SEED=<seed>.

const configmaps = findBuiltinResource('configmaps')!;
const PREFIX = '/consistency/registry';
const NAMESPACES = ['ns-a', 'ns-b'];
const NAMES = Array.from({ length: 12 }, (_, i) => `c${i}`);
const WRITERS = 3;
const OPS_PER_WRITER = 80;

let etcd: EtcdCluster;
beforeAll(async () => {
  etcd = await EtcdCluster.start();
});
afterAll(() => etcd?.destroy());

interface Seen {
  type: string;
  key: string;
  revision: Revision;
}

/** Reads one watch to its end, recording events and every PROGRESS violation. */
class Recorder {
  readonly events: Seen[] = [];
  readonly violations: string[] = [];
  private progress = 0;
  readonly done: Promise<void>;
  constructor(
    readonly watch: StorageWatch,
    readonly prefix: string,
    readonly start: Revision,
  ) {
    this.done = (async () => {
      for await (const event of watch as AsyncIterable<StorageEvent>) {
        if (event.type === 'PROGRESS') {
          if (event.revision < this.progress)
            this.violations.push(`PROGRESS went back: ${event.revision} after ${this.progress}`);
          this.progress = event.revision;
          continue;
        }
        if (event.revision <= this.progress)
          this.violations.push(
            `event at ${event.revision} after PROGRESS ${this.progress} (Bookmarkable)`,
          );
        const key = `${PREFIX}/configmaps/${event.object.metadata.namespace}/${event.object.metadata.name}`;
        this.events.push({ type: event.type, key, revision: event.revision });
      }
    })();
  }
  get lastProgress(): Revision {
    return this.progress;
  }
}

const cm = (name: string, namespace: string, v: number): KubeObject => ({
  metadata: { name, namespace },
  data: { v: String(v) },
});

async function writer(storage: Etcd3Storage, rand: SeededRandom): Promise<Revision> {
  let last = 0;
  for (let i = 0; i < OPS_PER_WRITER; i++) {
    const ns = rand.pick(NAMESPACES);
    const name = rand.pick(NAMES);
    const key = `${PREFIX}/configmaps/${ns}/${name}`;
    try {
      const op = rand.int(3);
      const written =
        op === 0
          ? await storage.create(key, cm(name, ns, i))
          : op === 1
            ? await storage.guaranteedUpdate(key, (current) => ({
                ...current,
                data: { v: `${i}` },
              }))
            : await storage.delete(key);
      last = Math.max(last, Number(written.metadata.resourceVersion));
    } catch (err) {
      if (!isStorageError(err, 'KeyExists') && !isStorageError(err, 'KeyNotFound')) throw err;
    }
  }
  return last;
}

/** etcd's history of the prefix after `from` up to `to`, from a raw etcd watch. */
async function history(from: Revision, to: Revision): Promise<Seen[]> {
  const client = new Etcd3({ hosts: etcd.endpoints });
  const stream = await client.watchClient.watch();
  const seen: Seen[] = [];
  try {
    await new Promise<void>((resolve, reject) => {
      stream.on('error', reject);
      stream.on('data', (res) => {
        for (const e of res.events) {
          seen.push({
            type:
              e.type === 'Delete'
                ? 'DELETED'
                : e.kv.create_revision === e.kv.mod_revision
                  ? 'ADDED'
                  : 'MODIFIED',
            key: e.kv.key.toString(),
            revision: Number(e.kv.mod_revision),
          });
        }
        if (seen.length > 0 && seen.at(-1)!.revision >= to) resolve();
      });
      stream.write({
        create_request: {
          key: Buffer.from(`${PREFIX}/`),
          range_end: Buffer.from(`${PREFIX}0`),
          start_revision: from + 1,
        },
      });
    });
  } finally {
    stream.cancel();
    client.close();
  }
  return seen;
}

it('watches from random revisions and consistent LISTs from the cache agree with etcd history under concurrent writers', async () => {
  const seed = testSeed();
  console.log(`etcd3 consistency: seed ${seed} (replay with LISTWATCH_SEED=${seed})`);
  const rand = seededRandom(seed);
  const writers = Array.from(
    { length: WRITERS },
    () => new Etcd3Storage({ endpoints: etcd.endpoints, prefix: PREFIX, compactionInterval: 0 }),
  );
  const reader = new Etcd3Storage({
    endpoints: etcd.endpoints,
    prefix: PREFIX,
    compactionInterval: 0,
    progressNotifyInterval: 200,
  });
  const cacher = new Cacher({ storage: reader, definition: configmaps, freshnessTimeoutMs: 3000 });
  const recorders: Recorder[] = [];
  const listChecks: Promise<string | undefined>[] = [];
  try {
    await cacher.start();
    await cacher.waitReady();
    const begin = await reader.currentRevision();
    let writing = true;
    const writes = Promise.all(
      writers.map((w, i) => writer(w, seededRandom(seed + i + 1))),
    ).finally(() => (writing = false));
    // While the writes go on: watchers from random past revisions, progress requests and
    // consistent LISTs at random moments.
    while (writing) {
      await new Promise((r) => setTimeout(r, rand.int(40)));
      const now = await reader.currentRevision();
      const action = rand.int(3);
      if (action === 0 && recorders.length < 12) {
        const start = begin + rand.int(now - begin + 1);
        const prefix = `${PREFIX}/configmaps/${rand.chance(0.5) ? '' : `${rand.pick(NAMESPACES)}/`}`;
        recorders.push(
          new Recorder(
            reader.watch(prefix, { fromRevision: start, progressNotify: true }),
            prefix,
            start,
          ),
        );
      } else if (action === 1 && recorders.length > 0) {
        rand.pick(recorders).watch.requestProgress();
      } else {
        listChecks.push(
          (async () => {
            const list = await cacher.list({});
            const at = Number(list.resourceVersion);
            const exact = await reader.list(`${PREFIX}/configmaps/`, { revision: at });
            const cached = list.items.map(
              (o) => `${o.metadata.namespace}/${o.metadata.name}@${o.metadata.resourceVersion}`,
            );
            const stored = exact.items.map(
              (o) => `${o.metadata.namespace}/${o.metadata.name}@${o.metadata.resourceVersion}`,
            );
            return JSON.stringify(cached) === JSON.stringify(stored)
              ? undefined
              : `consistent LIST at ${at} differs from etcd at ${at}`;
          })(),
        );
      }
    }
    const lastWrite = Math.max(...(await writes));
    const listProblems = (await Promise.all(listChecks)).filter(Boolean);
    expect(listProblems).toEqual([]);
    expect(listChecks.length).toBeGreaterThan(0);
    expect(recorders.length).toBeGreaterThan(0);

    const all = await history(begin, lastWrite);
    expect(all.at(-1)?.revision).toBe(lastWrite);
    // Each watcher catches up to the last write (PROGRESS past it at the latest).
    for (const r of recorders) {
      await expect
        .poll(
          () => {
            r.watch.requestProgress();
            return Math.max(r.lastProgress, r.events.at(-1)?.revision ?? 0) >= lastWrite;
          },
          { timeout: 10_000, interval: 100 },
        )
        .toBe(true);
      r.watch.close();
      await r.done;
      const expected = all.filter((e) => e.key.startsWith(r.prefix) && e.revision > r.start);
      expect({ prefix: r.prefix, start: r.start, events: r.events }).toEqual({
        prefix: r.prefix,
        start: r.start,
        events: expected,
      });
      expect(r.violations).toEqual([]);
    }
  } finally {
    for (const r of recorders) r.watch.close();
    await cacher.stop();
    await Promise.all([...writers, reader].map((s) => s.close()));
  }
}, 120_000);
