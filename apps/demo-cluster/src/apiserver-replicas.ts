import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** One `pnpm apiserver` process of the demo's control plane. */
export interface Replica {
  readonly index: number;
  readonly pid: number;
  readonly url: string;
  readonly port: number;
  /** Resolves with the signal or exit code when the process ends. */
  readonly exited: Promise<string>;
}

/** The apiserver's own entry point (its main.ts, or main.js when built), next to its index. */
function apiserverMain(): string {
  const index = fileURLToPath(import.meta.resolve('@listwatch/apiserver'));
  return join(dirname(index), index.endsWith('.ts') ? 'main.ts' : 'main.js');
}

/** Sources run through tsx with the workspace's source condition, as `pnpm apiserver` does. */
function sourceArgs(main: string): string[] {
  return main.endsWith('.ts') ? ['--conditions=@listwatch/source', '--import', 'tsx'] : [];
}

const children = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of children) child.kill('SIGKILL');
});

/**
 * Starts `count` apiserver processes with the same flags on free ports, as kube-apiserver runs
 * replicas on one etcd: each has its own watch cache and they share etcd's revisions, so a
 * resourceVersion from one is valid on another.
 */
export async function startReplicas(count: number, flags: readonly string[]): Promise<Replica[]> {
  const replicas = [];
  for (let index = 1; index <= count; index++) replicas.push(await startReplica(index, flags));
  return replicas;
}

/** One replica; on `port` (0: a free one). */
export async function startReplica(
  index: number,
  flags: readonly string[],
  port = 0,
): Promise<Replica> {
  const main = apiserverMain();
  const child = spawn(
    process.execPath,
    [...sourceArgs(main), main, ...flags, '--port', String(port), '--log-level', 'error'],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  children.add(child);
  const exited = once(child, 'exit').then(([code, signal]) => {
    children.delete(child);
    return String(signal ?? code);
  });
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const m = /serving on (\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    void exited.then((how) => reject(new Error(`apiserver replica ${index} exited (${how})`)));
  });
  child.stdout.resume();
  return { index, pid: child.pid!, url, port: Number(new URL(url).port), exited };
}

/**
 * A rolling restart's step: SIGTERM the replica at `position` (it stops accepting, ends its
 * watches cleanly and finishes in-flight requests), wait for it to exit, start it again on the
 * same port and put it back in `replicas` (the balancer reads that array).
 */
export async function restartReplica(
  replicas: Replica[],
  position: number,
  flags: readonly string[],
): Promise<Replica> {
  const old = replicas[position]!;
  process.kill(old.pid, 'SIGTERM');
  await old.exited;
  const fresh = await startReplica(old.index, flags, old.port);
  replicas[position] = fresh;
  return fresh;
}

/** A supervisor's restart delay after the n-th exit in a row (systemd's RestartSec, doubling). */
const RESTART_DELAYS_MS = [500, 1_000, 2_000, 4_000, 8_000, 15_000];
/** A replica that served this long before it died starts the delays over. */
const STABLE_AFTER_MS = 30_000;

/**
 * Restarts a replica that exits while `running()` says the cluster runs, on its port, in its place
 * in `replicas` (which the balancer reads), as a supervisor (systemd, a static pod's kubelet)
 * would: after a short delay that grows while it keeps dying. Each exit and restart is reported.
 */
export function superviseReplicas(
  replicas: Replica[],
  flags: readonly string[],
  report: (line: string) => void,
  running: () => boolean,
): void {
  const supervise = async (position: number): Promise<void> => {
    let failures = 0;
    let startedAt = Date.now();
    for (;;) {
      const replica = replicas[position]!;
      const how = await replica.exited;
      if (!running()) return;
      if (Date.now() - startedAt > STABLE_AFTER_MS) failures = 0;
      const delayOf = () => RESTART_DELAYS_MS[Math.min(failures, RESTART_DELAYS_MS.length - 1)]!;
      report(
        `apiserver replica ${replica.index} (pid ${replica.pid}) exited (${how}); its clients reconnect to another; restarting it in ${delayOf() / 1000} s`,
      );
      let fresh: Replica | undefined;
      while (!fresh) {
        await new Promise((resolve) => setTimeout(resolve, delayOf()));
        if (!running()) return;
        failures++;
        try {
          fresh = await startReplica(replica.index, flags, replica.port);
        } catch (err) {
          report(`apiserver replica ${replica.index} did not start: ${String(err)}`);
        }
      }
      if (!running()) {
        process.kill(fresh.pid, 'SIGTERM');
        return;
      }
      replicas[position] = fresh;
      startedAt = Date.now();
      report(`apiserver replica ${fresh.index} restarted on ${fresh.url} (pid ${fresh.pid})`);
    }
  };
  for (let position = 0; position < replicas.length; position++) void supervise(position);
}

/** SIGTERM (graceful: watches end cleanly, in-flight writes finish) and wait for each. */
export async function stopReplicas(replicas: readonly Replica[]): Promise<void> {
  for (const r of replicas) {
    try {
      process.kill(r.pid, 'SIGTERM');
    } catch {
      // already gone
    }
  }
  await Promise.all(replicas.map((r) => r.exited));
}

/** How long a replica that refused a connection is skipped. */
const DOWN_FOR_MS = 1_000;

/**
 * A TCP load balancer in front of the replicas, as a Service or cloud load balancer fronts
 * kube-apiservers: each connection goes to the next live replica in turn, so the clients'
 * connections (and the controllers' watches on them) spread across replicas; when one dies,
 * its connections drop and the clients reconnect through here to a survivor.
 */
export class ReplicaBalancer {
  private readonly sockets = new Set<Socket>();
  private readonly downUntil = new Map<number, number>();
  private next = 0;
  /** Connections handed to each replica (by index), for the report. */
  readonly connections = new Map<number, number>();

  private constructor(
    private readonly server: Server,
    private readonly replicas: readonly Replica[],
  ) {}

  static async listen(
    replicas: readonly Replica[],
    host: string,
    port: number,
  ): Promise<ReplicaBalancer> {
    const server = createServer();
    const balancer = new ReplicaBalancer(server, replicas);
    server.on('connection', (socket) => {
      balancer.sockets.add(socket);
      socket.once('close', () => balancer.sockets.delete(socket));
      socket.on('error', () => socket.destroy());
      socket.pause();
      balancer.route(socket);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, resolve);
    });
    return balancer;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  private route(client: Socket, tried = 0): void {
    const now = Date.now();
    const live = this.replicas.filter((r) => (this.downUntil.get(r.index) ?? 0) <= now);
    if (tried >= this.replicas.length || live.length === 0) {
      client.destroy();
      return;
    }
    const replica = live[this.next++ % live.length]!;
    const upstream = connect(replica.port, '127.0.0.1');
    this.sockets.add(upstream);
    upstream.once('close', () => this.sockets.delete(upstream));
    let connected = false;
    upstream.once('connect', () => {
      connected = true;
      this.connections.set(replica.index, (this.connections.get(replica.index) ?? 0) + 1);
      client.pipe(upstream).pipe(client);
      client.resume();
      client.once('close', () => upstream.destroy());
      upstream.once('close', () => client.destroy());
    });
    upstream.on('error', () => {
      if (connected || client.destroyed) return;
      // Refused: that replica is down; try the next one.
      this.downUntil.set(replica.index, Date.now() + DOWN_FOR_MS);
      this.route(client, tried + 1);
    });
  }

  /** Cuts every client connection, as a network blip would; new ones are routed as usual. */
  dropConnections(): void {
    for (const socket of this.sockets) socket.destroy();
  }

  async close(): Promise<void> {
    const closed = new Promise((resolve) => this.server.close(resolve));
    for (const socket of this.sockets) socket.destroy();
    await closed;
  }
}
