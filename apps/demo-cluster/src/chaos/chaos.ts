import { isApiError, type KubeObject } from '@listwatch/api';
import {
  RestClient,
  SharedInformerFactory,
  silentLogger,
  type ListerWatcher,
  type ResourceRef,
} from '@listwatch/client';
import { EtcdCluster, seededRandom, type EtcdMember, type SeededRandom } from '@listwatch/testing';
import { Etcd3 } from 'etcd3';
import {
  ReplicaBalancer,
  restartReplica,
  startReplica,
  startReplicas,
  stopReplicas,
  type Replica,
} from '../apiserver-replicas.js';
import { resources } from '../controllers/objects.js';
import { countingListerWatcher, type ListWatchCounts } from '../list-watch-counts.js';
import { NAMESPACE, sleep } from './chaos-config.js';
import { HistoryRecorder } from './history-recorder.js';
import { RawWatcher } from './raw-watcher.js';
import { checkSegments } from './validate-watch.js';

// The fault-injection suite (`pnpm test:chaos`): a 3-member etcd cluster on loopback, apiserver
// replicas on it behind a balancer, writers doing random creates/updates/deletes, raw watchers
// and informers resuming from their last resourceVersion across replicas — while faults hit on a
// schedule drawn from the seed. A checker then verifies etcd's watch guarantees for every watcher
// (etcd-io/etcd tests/robustness/validate/watch.go: Ordered, Unique, Atomic, Bookmarkable,
// Reliable, Resumable) against etcd's own history, that every informer equals a fresh LIST from
// each replica, and that every acknowledged write is present or superseded.

export interface ChaosOptions {
  seed: number;
  /** How long faults are injected. */
  durationMs: number;
  apiservers: number;
  /**
   * Start etcd with the test harness's flags (progress notifications every second) instead of
   * its default flags, as a user's etcd runs (the default: nothing may wait for a
   * progress notification, which etcd then sends every 10 minutes).
   */
  etcdTestFlags?: boolean;
  log: (line: string) => void;
}

export interface ChaosReport {
  seed: number;
  writesAcknowledged: number;
  writesUncertain: number;
  eventsDelivered: number;
  faults: Record<string, number>;
  relists: number;
  resumes: number;
  violations: string[];
}

const WRITERS = 4;
const KEYS_PER_WRITER = 8;
const RAW_WATCHERS = 4;
const INFORMERS = 2;

interface Ack {
  name: string;
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  /** The object's resourceVersion (empty for a delete: its revision is not in the response). */
  rv: string;
}

interface KeyState {
  object: KubeObject | undefined;
  /** A write whose outcome is unknown came after the last acknowledged one. */
  uncertain: boolean;
  last: Ack | undefined;
}

/** One writer: random writes to keys only it writes, so its acknowledgements order each key. */
async function writer(
  client: RestClient,
  w: number,
  rand: SeededRandom,
  running: () => boolean,
  acks: Ack[],
  keys: Map<string, KeyState>,
  counts: { uncertain: number },
): Promise<void> {
  const configmaps = client.resource<KubeObject>(resources.configmaps).namespace(NAMESPACE);
  for (let k = 0; k < KEYS_PER_WRITER; k++)
    keys.set(`w${w}-${k}`, { object: undefined, uncertain: false, last: undefined });
  let i = 0;
  while (running()) {
    const name = `w${w}-${rand.int(KEYS_PER_WRITER)}`;
    const state = keys.get(name)!;
    try {
      if (!state.object) {
        const created = await configmaps.create({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name },
          data: { i: String(i++) },
        });
        state.object = created;
        state.last = { name, type: 'ADDED', rv: created.metadata.resourceVersion! };
      } else if (rand.chance(0.7)) {
        const updated = await configmaps.update({ ...state.object, data: { i: String(i++) } });
        state.object = updated;
        state.last = { name, type: 'MODIFIED', rv: updated.metadata.resourceVersion! };
      } else {
        await configmaps.delete(name, {
          preconditions: { resourceVersion: state.object.metadata.resourceVersion! },
        });
        state.object = undefined;
        state.last = { name, type: 'DELETED', rv: '' };
      }
      state.uncertain = false;
      acks.push(state.last);
    } catch (err) {
      // A conflict or absence means an earlier uncertain write did land; anything else (a
      // broken connection, etcd unavailable) leaves this one's outcome unknown. Either way the
      // key is read back before the next write.
      if (!(isApiError(err) && (err.code === 409 || err.code === 404))) {
        state.uncertain = true;
        counts.uncertain++;
      }
      for (;;) {
        try {
          state.object = await configmaps.get(name);
          break;
        } catch (readErr) {
          if (isApiError(readErr) && readErr.code === 404) {
            state.object = undefined;
            break;
          }
          if (!running()) return;
          await sleep(200);
        }
      }
    }
    await sleep(10 + rand.int(30));
  }
}

async function leaderOf(members: readonly EtcdMember[]): Promise<EtcdMember | undefined> {
  for (const member of members) {
    if (!member.running) continue;
    const client = new Etcd3({ hosts: [member.endpoint] });
    try {
      const status = await client.maintenance.status({ deadline: new Date(Date.now() + 2000) });
      if (status.header.member_id === status.leader) return member;
    } catch {
      // not answering: not the leader we can find
    } finally {
      client.close();
    }
  }
  return undefined;
}

const FAULTS = [
  'kill-etcd-member',
  'kill-etcd-leader',
  'kill-apiserver',
  'stop-apiserver',
  'restart-apiserver',
  'cut-client-connections',
  'compact-etcd',
] as const;
type Fault = (typeof FAULTS)[number];

export async function runChaos(options: ChaosOptions): Promise<ChaosReport> {
  const { log, seed } = options;
  const rand = seededRandom(seed);
  const violations: string[] = [];
  const faults: Record<string, number> = Object.fromEntries(FAULTS.map((f) => [f, 0]));
  log(`chaos: seed ${seed} (replay with --seed ${seed}), ${options.durationMs / 1000} s of faults`);
  const defaultFlags = !options.etcdTestFlags;
  const etcd = await EtcdCluster.start(3, { defaultFlags });
  log(
    `chaos: etcd on ${defaultFlags ? 'its default flags' : 'the test flags (progress notifications every 1 s)'}`,
  );
  const flags = [
    '--storage-backend',
    'etcd3',
    '--etcd-servers',
    etcd.endpoints.join(','),
    // Compaction is one of the faults instead, at a time the schedule chooses.
    '--etcd-compaction-interval',
    '0',
  ];
  const replicas: Replica[] = await startReplicas(options.apiservers, flags);
  const balancer = await ReplicaBalancer.listen(replicas, '127.0.0.1', 0);
  const url = `http://127.0.0.1:${balancer.port}`;
  log(`chaos: etcd ${etcd.endpoints.join(',')}; ${replicas.length} apiservers behind ${url}`);
  const clients: RestClient[] = [];
  const newClient = () => {
    const c = new RestClient({ server: url, logger: silentLogger, timeoutMs: 10_000 });
    clients.push(c);
    return c;
  };
  const setup = newClient();
  await setup
    .resource(resources.namespaces)
    .create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } });
  const begin = Number(
    (await setup.resource(resources.configmaps).namespace(NAMESPACE).list()).metadata
      .resourceVersion,
  );

  const recorder = new HistoryRecorder(etcd.endpoints, begin);
  // Watchers first, so they see every write.
  const watchers = Array.from({ length: RAW_WATCHERS }, (_, i) => {
    const lw = newClient().resource<KubeObject>(resources.configmaps).namespace(NAMESPACE);
    return new RawWatcher(`watcher-${i}`, lw.listerWatcher(), seededRandom(seed * 31 + i));
  });
  const informerCounts: ListWatchCounts = { lists: 0, watches: 0 };
  let informerEvents = 0;
  const informers = Array.from({ length: INFORMERS }, () => {
    const client = newClient();
    const factory = new SharedInformerFactory({
      client,
      namespace: NAMESPACE,
      logger: silentLogger,
      listerWatcherFor: (resource: ResourceRef, ns: string): ListerWatcher =>
        countingListerWatcher(
          client.resource(resource).namespace(ns).listerWatcher(),
          informerCounts,
        ),
    });
    const informer = factory.informerFor<KubeObject>(resources.configmaps);
    informer.addEventHandler({
      onAdd: () => informerEvents++,
      onUpdate: () => informerEvents++,
      onDelete: () => informerEvents++,
    });
    factory.start();
    return { factory, informer };
  });
  await Promise.all(informers.map((i) => i.factory.waitForCacheSync()));

  let writing = true;
  const acks: Ack[] = [];
  const keys = new Map<string, KeyState>();
  const counts = { uncertain: 0 };
  const writers = Array.from({ length: WRITERS }, (_, w) =>
    writer(newClient(), w, seededRandom(seed * 7 + w), () => writing, acks, keys, counts),
  );

  // The fault schedule: one fault at a time, each recovered from before the next.
  const until = Date.now() + options.durationMs;
  while (Date.now() < until) {
    await sleep(1000 + rand.int(3000));
    const fault: Fault = rand.pick(FAULTS);
    faults[fault]!++;
    const position = rand.int(replicas.length);
    try {
      await inject(fault, position);
    } catch (err) {
      // The harness could not inject it (not a guarantee broken): said, and the run goes on.
      log(
        `fault ${fault} could not be injected: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
  }
  async function inject(fault: Fault, position: number): Promise<void> {
    switch (fault) {
      case 'kill-etcd-member':
      case 'kill-etcd-leader': {
        const member =
          fault === 'kill-etcd-leader'
            ? ((await leaderOf(etcd.members)) ?? rand.pick(etcd.members))
            : rand.pick(etcd.members);
        log(
          `fault: SIGKILL etcd ${member.options.name}${fault === 'kill-etcd-leader' ? ' (leader)' : ''}`,
        );
        await member.kill();
        await sleep(500 + rand.int(2500));
        await member.start();
        break;
      }
      case 'kill-apiserver': {
        const victim = replicas[position]!;
        log(`fault: SIGKILL apiserver ${victim.index}`);
        process.kill(victim.pid, 'SIGKILL');
        await victim.exited;
        await sleep(500 + rand.int(1500));
        replicas[position] = await startReplica(victim.index, flags, victim.port);
        break;
      }
      case 'stop-apiserver': {
        const victim = replicas[position]!;
        const ms = 500 + rand.int(2000);
        log(`fault: SIGSTOP apiserver ${victim.index} for ${ms} ms`);
        process.kill(victim.pid, 'SIGSTOP');
        await sleep(ms);
        process.kill(victim.pid, 'SIGCONT');
        break;
      }
      case 'restart-apiserver':
        log(`fault: SIGTERM apiserver ${replicas[position]!.index} (graceful restart)`);
        await restartReplica(replicas, position, flags);
        break;
      case 'compact-etcd': {
        // Somewhere in the recent past: watchers behind it resume with 410 and relist.
        const current = recorder.revision;
        const at = await recorder.compact(current - rand.int(Math.max(1, (current - begin) / 4)));
        log(`fault: etcd compacted at ${at} (current ${current})`);
        break;
      }
      case 'cut-client-connections':
        log(`fault: cut every client connection`);
        balancer.dropConnections();
        break;
    }
  }
  writing = false;
  await Promise.all(writers);
  log(`chaos: faults done; ${acks.length} writes acknowledged, checking`);

  // Every replica serves the same final state; informers and watchers catch up to it.
  const fresh = async (replica: Replica) => {
    const direct = new RestClient({ server: replica.url, logger: silentLogger });
    try {
      const list = await direct
        .resource<KubeObject>(resources.configmaps)
        .namespace(NAMESPACE)
        .list();
      return {
        rv: Number(list.metadata.resourceVersion),
        state: new Map(list.items.map((o) => [o.metadata.name!, o.metadata.resourceVersion!])),
      };
    } finally {
      await direct.close();
    }
  };
  const final = await fresh(replicas[0]!);
  const stateOf = (m: Map<string, string>) => JSON.stringify([...m].sort());
  for (const r of replicas.slice(1)) {
    const other = await fresh(r);
    if (stateOf(other.state) !== stateOf(final.state))
      violations.push(`apiserver ${r.index}'s LIST differs from apiserver ${replicas[0]!.index}'s`);
  }
  // Acknowledged writes: present, or superseded by a later write of unknown outcome.
  for (const [name, state] of keys) {
    if (state.uncertain || !state.last) continue;
    const stored = final.state.get(name);
    if (state.last.type === 'DELETED' ? stored !== undefined : stored !== state.last.rv)
      violations.push(
        `${name}: last acknowledged ${state.last.type} ${state.last.rv} but etcd has ${stored ?? 'nothing'}`,
      );
  }
  const historyDeadline = Date.now() + 30_000;
  while (recorder.revision < final.rv && Date.now() < historyDeadline) {
    recorder.requestProgress();
    await sleep(100);
  }
  if (recorder.revision < final.rv)
    violations.push(`etcd's history was not read up to ${final.rv} (at ${recorder.revision})`);
  if (recorder.failure) violations.push(recorder.failure);
  const history = recorder.events;
  const historyEnd = history.at(-1)?.rv ?? begin;
  const deadline = Date.now() + 30_000;
  for (const w of watchers) {
    while (w.lastRevision < historyEnd && Date.now() < deadline) await sleep(100);
    if (w.lastRevision < historyEnd)
      violations.push(`${w.id} did not catch up: at ${w.lastRevision}, etcd at ${historyEnd}`);
  }
  for (const [i, { informer }] of informers.entries()) {
    let state = new Map<string, string>();
    while (Date.now() < deadline) {
      state = new Map(
        informer
          .getIndexer()
          .list()
          .map((o) => [o.metadata.name!, o.metadata.resourceVersion!]),
      );
      if (stateOf(state) === stateOf(final.state)) break;
      await sleep(100);
    }
    if (stateOf(state) !== stateOf(final.state))
      violations.push(`informer ${i} differs from a fresh LIST`);
  }
  for (const w of watchers) {
    await w.stop();
    violations.push(...w.violations);
    violations.push(...checkSegments(w.id, w.segments, history));
  }

  for (const { factory } of informers) await factory.shutdown();
  for (const c of clients) await c.close();
  recorder.close();
  await balancer.close();
  await stopReplicas(replicas);
  await etcd.destroy();

  const watcherRelists = watchers.reduce((sum, w) => sum + w.relists, 0);
  const watcherResumes = watchers.reduce((sum, w) => sum + w.resumes, 0);
  return {
    seed,
    writesAcknowledged: acks.length,
    writesUncertain: counts.uncertain,
    eventsDelivered: informerEvents + watchers.reduce((sum, w) => sum + w.delivered, 0),
    faults,
    relists: watcherRelists + Math.max(0, informerCounts.lists - INFORMERS),
    resumes: watcherResumes + Math.max(0, informerCounts.watches - INFORMERS),
    violations,
  };
}

export function formatReport(report: ChaosReport): string[] {
  const faults = Object.entries(report.faults)
    .map(([name, n]) => `${name} ${n}`)
    .join(', ');
  return [
    `seed: ${report.seed}`,
    `writes acknowledged: ${report.writesAcknowledged} (outcome unknown: ${report.writesUncertain})`,
    `events delivered: ${report.eventsDelivered}`,
    `faults injected: ${Object.values(report.faults).reduce((a, b) => a + b, 0)} (${faults})`,
    `relists: ${report.relists}   resumes: ${report.resumes}`,
    `violations: ${report.violations.length}`,
    ...report.violations.map((v) => `  ${v}`),
  ];
}
