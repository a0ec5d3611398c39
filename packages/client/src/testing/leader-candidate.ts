/**
 * A leader-election candidate in a process of its own, for tests that kill one:
 *
 *   node --conditions=@listwatch/source --import tsx src/testing/leader-candidate.ts \
 *     <apiserver URL> <namespace/lease> <identity> <leaseMs> <renewMs> <retryMs>
 *
 * Prints `leading <id>` when it becomes the leader, `leader <holder>` whenever it observes a
 * new holder, and `stopped <id>` when it stops leading. SIGTERM stops it cleanly.
 */
import { findBuiltinResource } from '@listwatch/api';
import { LeaderElector } from '../leaderelection/leader-election.js';
import { LeaseLock, type Lease } from '../leaderelection/resource-lock.js';
import { RestClient } from '../rest/client.js';

const [server, lease, identity, leaseMs, renewMs, retryMs] = process.argv.slice(2);
if (!server || !lease?.includes('/') || !identity || !leaseMs || !renewMs || !retryMs) {
  process.stderr.write(
    'usage: leader-candidate <server> <namespace/lease> <identity> <leaseMs> <renewMs> <retryMs>\n',
  );
  process.exit(2);
}
const [namespace, name] = lease.split('/') as [string, string];
const say = (line: string): void => void process.stdout.write(`${line}\n`);

// Short request timeouts and no retries: a renewal must fail fast, not outlive renewDeadline.
const client = new RestClient({
  server,
  retry: { maxRetries: 0 },
  timeoutMs: Number(renewMs) / 2,
});
const stop = new AbortController();
process.once('SIGTERM', () => stop.abort());

const elector = new LeaderElector({
  lock: new LeaseLock(
    client.resource<Lease>(findBuiltinResource('leases')!),
    namespace,
    name,
    identity,
  ),
  leaseDurationMs: Number(leaseMs),
  renewDeadlineMs: Number(renewMs),
  retryPeriodMs: Number(retryMs),
  callbacks: {
    onStartedLeading: () => say(`leading ${identity}`),
    onStoppedLeading: () => say(`stopped ${identity}`),
    onNewLeader: (holder) => say(`leader ${holder}`),
  },
});

// Stand again after losing the lease, as a controller manager's main loop does.
while (!stop.signal.aborted) await elector.run(stop.signal);
await client.close();
