import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { findBuiltinResource } from '@listwatch/api';
import type { RunningApiServer } from '@listwatch/apiserver';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SharedInformerFactory } from '../cache/informer-factory.js';
import { LeaderElector } from './leader-election.js';
import { formatMicroTime, LeaseLock, type Lease } from './resource-lock.js';
import { RestClient } from '../rest/client.js';
import { eventually } from '../testing/eventually.js';
import { PausableProxy } from '../testing/pausable-proxy.js';
import { startTestApiServer } from '../testing/apiserver.js';

const leases = findBuiltinResource('leases')!;
// Short but in client-go's proportions: leaseDuration > renewDeadline > 1.2 × retryPeriod, the
// lease in whole seconds as the Lease stores it.
const TIMING = { leaseDurationMs: 2000, renewDeadlineMs: 1000, retryPeriodMs: 200 };
/** Room for two processes' views of the same clock to differ. */
const CLOCK_SKEW_MS = 50;

describe('LeaderElector on coordination.k8s.io/v1 Leases (client-go tools/leaderelection)', () => {
  let apiserver: RunningApiServer;
  const cleanups: (() => Promise<void>)[] = [];
  let n = 0;

  beforeAll(async () => {
    apiserver = await startTestApiServer();
  });
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });
  afterAll(async () => {
    await apiserver.close();
  });

  function candidate(
    identity: string,
    lease: string,
    server = apiserver.url,
    extra: {
      releaseOnCancel?: boolean;
      timing?: typeof TIMING;
      /** What the work returns: by default at once. */
      work?: Promise<void>;
      /** Also gets every event, as `<identity> <event>`, in the order the callbacks ran. */
      log?: string[];
    } = {},
  ) {
    // No request timeout of the client's own: only the elector's deadlines bound its calls.
    const client = new RestClient({ server, retry: { maxRetries: 0 }, timeoutMs: 60_000 });
    const stop = new AbortController();
    const events: string[] = [];
    const record = (event: string): void => {
      events.push(event);
      extra.log?.push(`${identity} ${event}`);
    };
    const state = { leading: false };
    const elector = new LeaderElector({
      lock: new LeaseLock(client.resource<Lease>(leases), 'default', lease, identity),
      ...(extra.timing ?? TIMING),
      ...(extra.releaseOnCancel !== undefined ? { releaseOnCancel: extra.releaseOnCancel } : {}),
      callbacks: {
        onStartedLeading: (signal) => {
          state.leading = true;
          record('started');
          signal.addEventListener('abort', () => (state.leading = false));
          return extra.work;
        },
        onStoppedLeading: () => record('stopped'),
        onNewLeader: (id) => record(`leader ${id}`),
      },
    });
    const running = elector.run(stop.signal);
    cleanups.push(async () => {
      stop.abort();
      // Closing first fails whatever request still hangs, so run() can return.
      await client.close();
      await running;
    });
    return { elector, stop, events, state, running };
  }

  const readLease = async (name: string): Promise<Lease> => {
    const client = new RestClient({ server: apiserver.url });
    try {
      return await client.resource<Lease>(leases).namespace('default').get(name);
    } finally {
      await client.close();
    }
  };

  it('elects exactly one of several candidates and records it in the Lease', async () => {
    const lease = `lease-${++n}`;
    const candidates = ['a', 'b', 'c'].map((id) => candidate(id, lease));
    await eventually(() => expect(candidates.filter((c) => c.state.leading)).toHaveLength(1));
    const leader = candidates.find((c) => c.state.leading)!;
    const record = await readLease(lease);
    expect(record.spec).toMatchObject({
      holderIdentity: leader.elector.getLeader(),
      leaseDurationSeconds: 2,
      leaseTransitions: 0,
    });
    for (const c of candidates)
      await eventually(() => expect(c.events).toContain(`leader ${leader.elector.getLeader()}`));
    // Renewals keep it: still one leader after a few lease durations.
    await new Promise((resolve) => setTimeout(resolve, TIMING.leaseDurationMs));
    expect(candidates.filter((c) => c.state.leading)).toEqual([leader]);
  });

  /** Candidate a leads, reaching the apiserver through a proxy; b follows, connected directly. */
  async function leaderBehindProxy(log?: string[]) {
    const lease = `lease-${++n}`;
    const proxy = await PausableProxy.start(apiserver.port);
    cleanups.push(() => proxy.close());
    const a = candidate('a', lease, proxy.url, log ? { log } : {});
    await eventually(() => expect(a.state.leading).toBe(true));
    const b = candidate('b', lease, apiserver.url, log ? { log } : {});
    await eventually(() => expect(b.events).toContain('leader a'));
    return { lease, proxy, a, b };
  }

  it('hands over when the leader can no longer renew: it steps down, another takes the lease', async () => {
    const { lease, proxy, a, b } = await leaderBehindProxy();
    await proxy.pause(); // a is cut off from the apiserver
    await eventually(() => expect(a.events).toContain('stopped'), 5000);
    await a.running;
    await eventually(() => expect(b.state.leading).toBe(true), 5000);
    const record = await readLease(lease);
    expect(record.spec).toMatchObject({ holderIdentity: 'b', leaseTransitions: 1 });
    expect(a.state.leading).toBe(false);
  });

  it('steps down by its renew deadline when the apiserver stops answering, before another candidate can take over', async () => {
    const log: string[] = [];
    const { proxy, b } = await leaderBehindProxy(log);
    proxy.stall(); // a's requests now hang instead of failing
    await eventually(() => expect(b.state.leading).toBe(true), 10_000);
    // a gave up when its renew deadline passed, not when its (60 s) request timeout did.
    expect(log.filter((e) => e === 'a stopped' || e === 'b started')).toEqual([
      'a stopped',
      'b started',
    ]);
  });

  it('goes by the lease duration the holder wrote in the Lease, not by its own', async () => {
    const lease = `lease-${++n}`;
    // a renews only every 3 s and says so: its lease lasts 6 s.
    const slow = { leaseDurationMs: 6000, renewDeadlineMs: 4000, retryPeriodMs: 3000 };
    const a = candidate('a', lease, apiserver.url, { timing: slow });
    await eventually(() => expect(a.state.leading).toBe(true));
    // b's own 2 s would call a's lease expired between two of a's renewals.
    const b = candidate('b', lease);
    await eventually(() => expect(b.events).toContain('leader a'));
    const watched = Date.now();
    while (Date.now() - watched < 4000) {
      expect(b.state.leading).toBe(false);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(a.state.leading).toBe(true);
  });

  it('calls onStoppedLeading as soon as leadership ends, even while the work has not returned', async () => {
    const lease = `lease-${++n}`;
    let finishWork!: () => void;
    const work = new Promise<void>((resolve) => (finishWork = resolve));
    const a = candidate('a', lease, apiserver.url, { work });
    // Cleanups run last-in first: a failed assertion must not leave run() awaiting the work.
    cleanups.push(() => Promise.resolve(finishWork()));
    await eventually(() => expect(a.state.leading).toBe(true));
    a.stop.abort();
    await eventually(() => expect(a.events).toContain('stopped'));
    let ran = false;
    void a.running.then(() => (ran = true));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(ran).toBe(false); // run() itself waits for the work
    finishWork();
    await a.running;
  });

  /** A candidate in a process of its own (src/testing/leader-candidate.ts). */
  function candidateProcess(identity: string, lease: string) {
    const script = fileURLToPath(new URL('../testing/leader-candidate.ts', import.meta.url));
    const child = spawn(
      process.execPath,
      [
        '--conditions=@listwatch/source',
        '--import',
        'tsx',
        script,
        apiserver.url,
        `default/${lease}`,
        identity,
        String(TIMING.leaseDurationMs),
        String(TIMING.renewDeadlineMs),
        String(TIMING.retryPeriodMs),
      ],
      { cwd: fileURLToPath(new URL('../..', import.meta.url)), stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const lines: string[] = [];
    let stderr = '';
    createInterface({ input: child.stdout }).on('line', (line) => lines.push(line));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = once(child, 'exit');
    cleanups.push(async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL');
        await exited;
      }
    });
    return { identity, child, lines, exited, stderr: () => stderr };
  }

  it('hands over when the leader process dies: the other process takes the lease once it expires, and the Lease shows the new holder and one transition', async () => {
    const lease = `lease-${++n}`;
    // Every version of the Lease, in order, through an informer of our own.
    const versions: Lease[] = [];
    const client = new RestClient({ server: apiserver.url });
    const factory = new SharedInformerFactory({ client, namespace: 'default' });
    cleanups.push(async () => {
      await factory.shutdown();
      await client.close();
    });
    const record = (o: Lease) => void (o.metadata.name === lease && versions.push(o));
    factory.informerFor<Lease>(leases).addEventHandler({
      onAdd: record,
      onUpdate: (_old, o) => record(o),
    });
    factory.start();
    await factory.waitForCacheSync();

    const procs = [candidateProcess('proc-a', lease), candidateProcess('proc-b', lease)];
    const leading = () => procs.filter((p) => p.lines.includes(`leading ${p.identity}`));
    await eventually(() => expect(leading()).toHaveLength(1), 30_000).catch((err: unknown) => {
      throw new Error(`${String(err)}\n${procs.map((p) => p.stderr()).join('\n')}`);
    });
    const [leader] = leading();
    const survivor = procs.find((p) => p !== leader)!;
    await eventually(() => expect(survivor.lines).toContain(`leader ${leader!.identity}`));

    leader!.child.kill('SIGKILL');
    await leader!.exited;
    await eventually(() => expect(survivor.lines).toContain(`leading ${survivor.identity}`));

    expect((await readLease(lease)).spec).toMatchObject({
      holderIdentity: survivor.identity,
      leaseTransitions: 1,
    });
    await eventually(() => expect(versions.at(-1)?.spec?.holderIdentity).toBe(survivor.identity));
    // The survivor took over only once the dead leader's last renewal had gone unrenewed for
    // a whole lease duration (the processes share this machine's clock; MicroTime rounds).
    const lastRenewal = versions.filter((v) => v.spec?.holderIdentity === leader!.identity).at(-1);
    const takeover = versions.find((v) => v.spec?.holderIdentity === survivor.identity);
    expect(
      Date.parse(takeover!.spec!.acquireTime!) - Date.parse(lastRenewal!.spec!.renewTime!),
    ).toBeGreaterThanOrEqual(TIMING.leaseDurationMs - CLOCK_SKEW_MS);
    expect(takeover?.spec?.leaseTransitions).toBe(1);
    expect(leader!.lines).not.toContain(`stopped ${leader!.identity}`);
  }, 60_000);

  it('releases the lease on a clean stop so a successor need not wait for it to expire', async () => {
    const lease = `lease-${++n}`;
    const a = candidate('a', lease, apiserver.url, { releaseOnCancel: true });
    await eventually(() => expect(a.state.leading).toBe(true));
    a.stop.abort();
    await a.running;
    expect(a.events.at(-1)).toBe('stopped');
    expect((await readLease(lease)).spec).toMatchObject({
      holderIdentity: '',
      leaseDurationSeconds: 1,
    });
    const b = candidate('b', lease);
    await eventually(() => expect(b.state.leading).toBe(true));
  });

  it('validates its timing like client-go and writes MicroTime', () => {
    const lock = {
      identity: 'x',
      get: () => Promise.resolve(undefined),
      create: () => Promise.resolve(),
      update: () => Promise.resolve(),
      describe: () => 'x',
    };
    const callbacks = { onStartedLeading: () => undefined };
    expect(
      () => new LeaderElector({ lock, callbacks, leaseDurationMs: 10, renewDeadlineMs: 10 }),
    ).toThrow(/leaseDuration must be greater than renewDeadline/);
    expect(
      () => new LeaderElector({ lock, callbacks, renewDeadlineMs: 2000, retryPeriodMs: 2000 }),
    ).toThrow(/retryPeriod\*JitterFactor/);
    expect(formatMicroTime(Date.UTC(2024, 0, 2, 3, 4, 5, 678))).toBe('2024-01-02T03:04:05.678000Z');
  });
});
