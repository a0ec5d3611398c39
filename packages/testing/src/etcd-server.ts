import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { ensureEtcdBinary } from './etcd-binary.js';
import { freePort } from './ports.js';
import { tempDir } from './temp-dir.js';
import { currentTier } from './tiers.js';

export interface EtcdMemberOptions {
  name: string;
  dataDir: string;
  clientPort: number;
  peerPort: number;
  /** `name=http://127.0.0.1:port,...` for every member of the cluster. */
  initialCluster: string;
  /** etcd's default flags: see EtcdClusterOptions.defaultFlags. */
  defaultFlags?: boolean;
}

export interface EtcdClusterOptions {
  /**
   * Start etcd with its default flags, as `apt-get install etcd-server` runs it: no
   * `--experimental-watch-progress-notify-interval`, so etcd notifies idle watches every 10
   * minutes, as a user's etcd does. Without it the harness asks for one every second. Either
   * way `--unsafe-no-fsync` (speed on a shared test machine; nothing a client can observe but a
   * crash's durability). Default: the environment variable `LISTWATCH_ETCD_DEFAULT_FLAGS=1` turns
   * it on for every cluster of a run.
   */
  defaultFlags?: boolean;
}

/** Whether `LISTWATCH_ETCD_DEFAULT_FLAGS=1` asks every harness etcd to run on its default flags. */
export function etcdDefaultFlagsFromEnv(): boolean {
  return process.env['LISTWATCH_ETCD_DEFAULT_FLAGS'] === '1';
}

const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/**
 * One etcd member started by the test harness on loopback ports, in a temp data dir.
 * `kill()` and `start()` keep the data dir and ports, so a test can restart etcd under a client.
 */
export class EtcdMember {
  private child: ChildProcess | undefined;
  private output = '';

  constructor(readonly options: EtcdMemberOptions) {}

  get endpoint(): string {
    return `http://127.0.0.1:${this.options.clientPort}`;
  }

  get running(): boolean {
    return this.child !== undefined;
  }

  /** The process id while running. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Starts the process; resolves once it answers /health (a cluster needs quorum first). */
  async start(waitHealthy = true): Promise<void> {
    if (this.child) return;
    const { name, dataDir, peerPort, initialCluster, defaultFlags } = this.options;
    const peerUrl = `http://127.0.0.1:${peerPort}`;
    const child = spawn(
      ensureEtcdBinary(),
      [
        `--name=${name}`,
        `--data-dir=${dataDir}`,
        `--listen-client-urls=${this.endpoint}`,
        `--advertise-client-urls=${this.endpoint}`,
        `--listen-peer-urls=${peerUrl}`,
        `--initial-advertise-peer-urls=${peerUrl}`,
        `--initial-cluster=${initialCluster}`,
        '--initial-cluster-state=new',
        '--unsafe-no-fsync',
        // etcd's own progress notifications, sent in order with events (the default is 10m).
        // Nothing may depend on them: the default-flags runs, without this, prove it.
        ...(defaultFlags ? [] : ['--experimental-watch-progress-notify-interval=1s']),
        '--logger=zap',
        '--log-level=error',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    this.output = '';
    const collect = (chunk: Buffer) => {
      this.output = (this.output + chunk.toString()).slice(-8192);
    };
    child.stdout?.on('data', collect);
    child.stderr?.on('data', collect);
    child.once('exit', () => {
      running.delete(child);
      if (this.child === child) this.child = undefined;
    });
    running.add(child);
    this.child = child;
    if (waitHealthy) await this.waitHealthy();
  }

  async waitHealthy(timeoutMs = 20_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (!this.child) throw new Error(`etcd ${this.options.name} exited:\n${this.output}`);
      try {
        const res = await fetch(`${this.endpoint}/health`, { signal: AbortSignal.timeout(1000) });
        const body = (await res.json()) as { health?: string };
        if (body.health === 'true') return;
      } catch {
        // not listening yet
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`etcd ${this.options.name} not healthy after ${timeoutMs} ms:\n${this.output}`);
  }

  /** SIGKILL, as a crash: nothing is flushed beyond what etcd already persisted. */
  async kill(): Promise<void> {
    await this.signal('SIGKILL');
  }

  /** SIGTERM, a clean shutdown. */
  async stop(): Promise<void> {
    await this.signal('SIGTERM');
  }

  private async signal(sig: NodeJS.Signals): Promise<void> {
    const child = this.child;
    if (!child) return;
    const exited = once(child, 'exit');
    child.kill(sig);
    await exited;
  }
}

/** A single-member or multi-member etcd cluster on loopback, in its own temp dir. */
export class EtcdCluster {
  private constructor(
    readonly members: EtcdMember[],
    private readonly dir: { path: string; remove(): void },
  ) {}

  /** Starts `size` members; `options.defaultFlags` runs them as a user's etcd (default flags). */
  static async start(size = 1, options: EtcdClusterOptions = {}): Promise<EtcdCluster> {
    const defaultFlags = options.defaultFlags ?? etcdDefaultFlagsFromEnv();
    const tier = currentTier();
    if (tier !== undefined && tier !== 'etcd')
      throw new Error(
        `EtcdCluster.start() in a ${tier} test: only the etcd tier has etcd. Name the file ` +
          '*.etcd.test.ts, or list it in backendMatrices (packages/testing/src/tiers.ts) when ' +
          'it runs storageBackends().',
      );
    const dir = tempDir('listwatch-etcd-');
    const ports = [];
    for (let i = 0; i < size; i++) ports.push({ client: await freePort(), peer: await freePort() });
    const initialCluster = ports.map((p, i) => `m${i}=http://127.0.0.1:${p.peer}`).join(',');
    const members = ports.map(
      (p, i) =>
        new EtcdMember({
          name: `m${i}`,
          dataDir: `${dir.path}/m${i}`,
          clientPort: p.client,
          peerPort: p.peer,
          initialCluster,
          defaultFlags,
        }),
    );
    const cluster = new EtcdCluster(members, dir);
    try {
      await Promise.all(members.map((m) => m.start(false)));
      await Promise.all(members.map((m) => m.waitHealthy()));
    } catch (err) {
      await cluster.destroy();
      throw err;
    }
    return cluster;
  }

  /** Client URLs of every member, as `--etcd-servers` takes them. */
  get endpoints(): string[] {
    return this.members.map((m) => m.endpoint);
  }

  /** The first member: for single-member clusters. */
  get member(): EtcdMember {
    const first = this.members[0];
    if (!first) throw new Error('empty etcd cluster');
    return first;
  }

  async destroy(): Promise<void> {
    await Promise.all(this.members.map((m) => m.kill()));
    this.dir.remove();
  }
}

/** Starts a one-member etcd cluster. Remember to `destroy()` it (afterAll). */
export function startEtcd(size = 1, options: EtcdClusterOptions = {}): Promise<EtcdCluster> {
  return EtcdCluster.start(size, options);
}
