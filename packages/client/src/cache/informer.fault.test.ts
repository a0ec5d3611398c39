import { join } from 'node:path';
import { findBuiltinResource, jsonLineLogger, silentLogger, type KubeObject } from '@listwatch/api';
import { startApiServer, type RunningApiServer } from '@listwatch/apiserver';
import { SqliteStorage } from '@listwatch/storage';
import { tempDir } from '@listwatch/testing';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { RestClient } from '../rest/client.js';
import { eventually } from '../testing/eventually.js';
import { PausableProxy } from '../testing/pausable-proxy.js';
import { DeletedFinalStateUnknown } from './deleted-final-state-unknown.js';
import { SharedInformerFactory } from './informer-factory.js';
import type { EventHandler } from './processor-listener.js';

const configmaps = findBuiltinResource('configmaps')!;
const NAMESPACE = 'default';
/** The apiserver's watch cache window: a client further behind than this gets 410. */
const WINDOW = 8;
/** Few names, so creates, updates and deletes keep hitting the same keys. */
const NAMES = 10;
const OPS = 100;

type Write = { kind: 'write'; name: number; remove: boolean };
type Op =
  | Write
  /** More writes than the window holds, with the informer's connections reset part-way. */
  | { kind: 'burst'; writes: Write[]; dropAfter: number }
  /** Connections reset; the informer reconnects at once. */
  | { kind: 'drop' }
  /** The informer cannot connect while writes (and maybe a compaction) go on. */
  | { kind: 'outage'; writes: Write[]; compact: boolean }
  /** The apiserver stops and starts again on the same port and sqlite file. */
  | { kind: 'restart' }
  | { kind: 'compact' }
  /** Lets the informer run for a moment, so faults land at different points of its work. */
  | { kind: 'wait'; ms: number };

const writeArb: fc.Arbitrary<Write> = fc.record({
  kind: fc.constant('write' as const),
  name: fc.nat({ max: NAMES - 1 }),
  remove: fc.boolean(),
});
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 10, arbitrary: writeArb },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('burst' as const),
      writes: fc.array(writeArb, { minLength: WINDOW + 1, maxLength: 2 * WINDOW }),
      dropAfter: fc.nat({ max: 2 * WINDOW }),
    }),
  },
  { weight: 3, arbitrary: fc.constant({ kind: 'drop' as const }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('outage' as const),
      writes: fc.array(writeArb, { maxLength: 2 * WINDOW }),
      compact: fc.boolean(),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'restart' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'compact' as const }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('wait' as const),
      ms: fc.integer({ min: 0, max: 40 }),
    }),
  },
);

const keyOf = (o: KubeObject): string => `${o.metadata.namespace}/${o.metadata.name}`;

/**
 * What one handler believes the collection is, built only from its add/update/delete calls, and
 * the calls that contradict what it was told before (an add of a key it has, an update whose old
 * object is not the one it saw, a delete of a key it never had).
 */
class HandlerView {
  readonly state = new Map<string, string | undefined>();
  readonly violations: string[] = [];
  /** Every call per key, to explain a violation. */
  readonly history = new Map<string, string[]>();
  tombstones = 0;
  readonly handler: EventHandler;

  constructor(
    readonly name: string,
    /** Makes each call asynchronous, so bursts overflow the handler's buffer. */
    slow = false,
  ) {
    const tick = slow ? () => new Promise<void>((resolve) => setImmediate(resolve)) : undefined;
    this.handler = {
      onAdd: (o) => {
        const key = this.record(keyOf(o), `add ${o.metadata.resourceVersion}`);
        if (this.state.has(key)) this.violate(key, 'add of a known key');
        this.state.set(key, o.metadata.resourceVersion);
        return tick?.();
      },
      onUpdate: (old, o) => {
        const key = this.record(
          keyOf(o),
          `update ${old.metadata.resourceVersion}→${o.metadata.resourceVersion}`,
        );
        if (!this.state.has(key)) this.violate(key, 'update of an unknown key');
        else if (this.state.get(key) !== old.metadata.resourceVersion)
          this.violate(key, 'update from a state it was not told of');
        this.state.set(key, o.metadata.resourceVersion);
        return tick?.();
      },
      onDelete: (o) => {
        let key: string;
        if (o instanceof DeletedFinalStateUnknown) {
          const last = o.obj?.metadata.resourceVersion;
          key = this.record(o.key, `tombstone ${last}`);
          this.tombstones++;
          // The tombstone holds the last state the informer knew: the one this handler saw, or
          // — for a delete folded while the handler lagged — the deleted object's final state.
          // Never an older one. (Our resourceVersions are integers; Kubernetes' are opaque.)
          const seen = this.state.get(key);
          if (last !== undefined && seen !== undefined && Number(last) < Number(seen))
            this.violate(key, 'tombstone older than the state it was told of');
        } else {
          key = this.record(keyOf(o), `delete ${o.metadata.resourceVersion}`);
        }
        if (!this.state.delete(key)) this.violate(key, 'delete of an unknown key');
        return tick?.();
      },
    };
  }

  private record(key: string, call: string): string {
    let calls = this.history.get(key);
    if (!calls) this.history.set(key, (calls = []));
    calls.push(call);
    return key;
  }

  private violate(key: string, what: string): void {
    this.violations.push(`${what}: ${key} [${this.history.get(key)?.join(', ')}]`);
  }
}

/** The apiserver on one sqlite file, restartable on the same port; writes go to it directly. */
class Cluster {
  private writerClient!: RestClient;
  /** The last object the server returned for each existing name. */
  readonly objects = new Map<string, KubeObject>();
  /** Every write with the resourceVersion it got, and every fault, in order: for failures. */
  readonly history: string[] = [];
  private seq = 0;

  private constructor(
    private readonly file: string,
    public server: RunningApiServer,
  ) {
    this.connectWriter();
  }

  static async start(file: string): Promise<Cluster> {
    return new Cluster(file, await Cluster.serve(file, 0));
  }

  private static serve(file: string, port: number): Promise<RunningApiServer> {
    return startApiServer({
      port,
      storage: new SqliteStorage({ file, synchronous: 'NORMAL', compactionInterval: 0 }),
      logger: silentLogger,
      defaultWatchCacheSize: WINDOW,
      bookmarkIntervalMs: 200,
    });
  }

  private connectWriter(): void {
    this.writerClient = new RestClient({
      server: this.server.url,
      retry: { backoff: { initialMs: 10, maxMs: 50 } },
    });
  }

  private get cms() {
    return this.writerClient.resource(configmaps).namespace(NAMESPACE);
  }

  async write({ name: n, remove }: Write): Promise<void> {
    const name = `cm-${n}`;
    const current = this.objects.get(name);
    if (!current) {
      const created = await this.cms.create({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name, namespace: NAMESPACE },
        data: { seq: String(++this.seq) },
      });
      this.objects.set(name, created);
      this.history.push(`create ${name} ${created.metadata.resourceVersion}`);
    } else if (remove) {
      const gone = (await this.cms.delete(name)) as KubeObject;
      this.objects.delete(name);
      this.history.push(`delete ${name} ${gone.metadata?.resourceVersion}`);
    } else {
      const updated = await this.cms.update({ ...current, data: { seq: String(++this.seq) } });
      this.objects.set(name, updated);
      this.history.push(`update ${name} ${updated.metadata.resourceVersion}`);
    }
  }

  async compact(): Promise<void> {
    const revision = await this.server.storage.currentRevision();
    await this.server.storage.compact(revision);
    this.history.push(`compact ${revision}`);
  }

  async restart(): Promise<void> {
    this.history.push('restart');
    await this.writerClient.close();
    await this.server.close();
    this.server = await Cluster.serve(this.file, this.server.port);
    this.connectWriter();
  }

  /** A fresh LIST: name → resourceVersion. */
  async truth(): Promise<Map<string, string | undefined>> {
    const list = await this.cms.list();
    return new Map(list.items.map((o) => [keyOf(o), o.metadata.resourceVersion]));
  }

  async close(): Promise<void> {
    await this.writerClient.close();
    await this.server.close();
  }
}

/** How `seen` differs from `truth`, key by key, for a readable failure. */
function difference(
  who: string,
  seen: Map<string, string | undefined>,
  truth: Map<string, string | undefined>,
): string[] {
  const out: string[] = [];
  for (const [key, rv] of truth)
    if (seen.get(key) !== rv) out.push(`${who}: ${key} at ${seen.get(key)}, server ${rv}`);
  for (const [key, rv] of seen) if (!truth.has(key)) out.push(`${who}: ${key} at ${rv}, deleted`);
  return out;
}

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function seedOf(): number {
  const fromEnv = process.env.LISTWATCH_FAULT_SEED;
  return fromEnv ? Number(fromEnv) : Math.floor(Math.random() * 0x7fffffff);
}

describe.each([{ fifo: 'real' as const }, { fifo: 'delta' as const }])(
  'an informer ($fifo FIFO) under a seeded random run of writes and faults',
  ({ fifo }) => {
    it('ends with its cache equal to a fresh LIST and every handler view equal to its cache, through connection resets, apiserver restarts and compactions (with tombstones for missed deletes)', async () => {
      const seed = seedOf();
      const ops = fc.sample(fc.array(opArb, { minLength: OPS, maxLength: OPS }), {
        seed,
        numRuns: 1,
      })[0]!;
      const logs: string[] = [];
      const logger = jsonLineLogger({
        level: 'info',
        write: (line) => {
          logs.push(line);
          if (logs.length > 400) logs.shift();
        },
      });
      const done: string[] = [];

      const dir = tempDir('listwatch-fault-');
      cleanups.push(() => dir.remove());
      const cluster = await Cluster.start(join(dir.path, 'state.db'));
      cleanups.push(() => cluster.close());
      const proxy = await PausableProxy.start(cluster.server.port);
      cleanups.push(() => proxy.close());
      const client = new RestClient({
        server: proxy.url,
        retry: { backoff: { initialMs: 10, maxMs: 50 } },
      });
      cleanups.push(() => client.close());
      const factory = new SharedInformerFactory({
        client,
        namespace: NAMESPACE,
        fifo,
        logger,
        // Small pages: relists span several requests, so resets and compactions hit them.
        reflector: { backoff: { initialMs: 10, maxMs: 50 }, pageSize: 4 },
      });
      cleanups.push(() => factory.shutdown());
      const informer = factory.informerFor(configmaps);

      const views = [new HandlerView('prompt'), new HandlerView('slow', true)];
      informer.addEventHandler(views[0]!.handler, { name: 'prompt' });
      // A buffer of 2 overflows in every burst: the handler is caught up from the cache.
      informer.addEventHandler(views[1]!.handler, { name: 'slow', bufferSize: 2 });

      const cacheState = () =>
        new Map(
          informer
            .getIndexer()
            .list()
            .map((o) => [keyOf(o), o.metadata.resourceVersion]),
        );
      const converged = () =>
        eventually(async () => {
          const truth = await cluster.truth();
          expect(difference('cache', cacheState(), truth)).toEqual([]);
          for (const view of views) expect(difference(view.name, view.state, truth)).toEqual([]);
        }, 30_000);

      const drop = (): void => {
        cluster.history.push('drop connections');
        proxy.dropConnections();
      };
      const pause = (): Promise<void> => {
        cluster.history.push('outage');
        return proxy.pause();
      };
      const resume = (): Promise<void> => {
        cluster.history.push('reconnect');
        return proxy.resume();
      };
      const run = async (op: Op): Promise<void> => {
        switch (op.kind) {
          case 'write':
            return cluster.write(op);
          case 'burst':
            for (const [i, w] of op.writes.entries()) {
              if (i === op.dropAfter) drop();
              await cluster.write(w);
            }
            return;
          case 'drop':
            return drop();
          case 'outage':
            await pause();
            for (const w of op.writes) await cluster.write(w);
            if (op.compact) await cluster.compact();
            return resume();
          case 'restart':
            return cluster.restart();
          case 'compact':
            return cluster.compact();
          case 'wait':
            return new Promise((resolve) => setTimeout(resolve, op.ms));
        }
      };

      try {
        for (let i = 0; i < 3; i++) await cluster.write({ kind: 'write', name: i, remove: false });
        factory.start();
        expect([...(await factory.waitForCacheSync()).values()]).toEqual([true]);
        for (const [i, op] of ops.entries()) {
          if (i === OPS / 2) {
            // A handler joining mid-run is replayed the cache, then follows like the others.
            const late = new HandlerView('late');
            views.push(late);
            informer.addEventHandler(late.handler, { name: 'late' });
          }
          await run(op);
          done.push(op.kind);
        }

        // Always end on a missed delete: the informer is caught up, then cut off while an
        // object is deleted and the window rolls past it, so it must relist and infer the
        // delete (DeletedFinalStateUnknown).
        if (cluster.objects.size === 0)
          await cluster.write({ kind: 'write', name: 0, remove: false });
        await converged();
        const tombstonesBefore = views[0]!.tombstones;
        const victim = Number([...cluster.objects.keys()][0]!.slice('cm-'.length));
        await pause();
        await cluster.write({ kind: 'write', name: victim, remove: true });
        for (let i = 0; i <= WINDOW; i++) {
          const name = NAMES + i; // names outside the pool: creates only
          await cluster.write({ kind: 'write', name, remove: false });
        }
        await cluster.compact();
        await resume();
        done.push('final outage');

        await converged();
        expect(views[0]!.tombstones).toBeGreaterThan(tombstonesBefore);
        for (const view of views) expect([view.name, view.violations]).toEqual([view.name, []]);
      } catch (err) {
        const why = err instanceof Error ? (err.stack ?? err.message) : String(err);
        throw new Error(
          `fault run failed — seed ${seed} (rerun: LISTWATCH_FAULT_SEED=${seed})\n` +
            `ops done: ${done.join(' ')}\nops: ${JSON.stringify(ops)}\n${why}\n` +
            views
              .map((v) => `handler ${v.name}: ${v.violations.join('; ') || 'consistent'}\n`)
              .join('') +
            `writes and faults (last 60):\n${cluster.history.slice(-60).join(', ')}\n` +
            `informer log (last lines):\n${logs.slice(-80).join('\n')}`,
        );
      }
    }, 90_000);
  },
);
