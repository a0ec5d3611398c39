import { ApiError, metaV1MicroTime, type KubeObject } from '@listwatch/api';
import type { ResourceClient } from '../rest/resource-client.js';

/** What the lock stores (client-go resourcelock.LeaderElectionRecord); times in epoch ms. */
export interface LeaderElectionRecord {
  holderIdentity: string;
  leaseDurationSeconds: number;
  acquireTime: number;
  renewTime: number;
  leaderTransitions: number;
}

/** A coordination.k8s.io/v1 Lease. */
export interface Lease extends KubeObject {
  spec?: {
    holderIdentity?: string;
    leaseDurationSeconds?: number;
    acquireTime?: string;
    renewTime?: string;
    leaseTransitions?: number;
  };
}

/**
 * Where the record lives (client-go resourcelock.Interface). `signal` aborts a call the elector
 * no longer waits for (a renewal past its deadline): the call should then fail promptly.
 */
export interface ResourceLock {
  readonly identity: string;
  /** The current record, or undefined if there is no lock object yet. */
  get(signal?: AbortSignal): Promise<LeaderElectionRecord | undefined>;
  create(record: LeaderElectionRecord, signal?: AbortSignal): Promise<void>;
  /** Must fail (409) if the lock changed since it was last read or written. */
  update(record: LeaderElectionRecord, signal?: AbortSignal): Promise<void>;
  describe(): string;
}

function parseTime(value: string | undefined): number {
  if (!value) return 0;
  const t = Date.parse(value);
  return Number.isNaN(t) ? 0 : t;
}

/**
 * A Lease as the lock (client-go resourcelock.LeaseLock). Updates PUT the Lease last read or
 * written, so its resourceVersion makes every write conditional: of two candidates racing for
 * an expired lease exactly one succeeds.
 */
export class LeaseLock implements ResourceLock {
  private lease: Lease | undefined;

  constructor(
    private readonly leases: ResourceClient<Lease>,
    readonly namespace: string,
    readonly name: string,
    readonly identity: string,
  ) {}

  describe(): string {
    return `${this.namespace}/${this.name}`;
  }

  async get(signal?: AbortSignal): Promise<LeaderElectionRecord | undefined> {
    try {
      this.lease = await this.leases
        .namespace(this.namespace)
        .get(this.name, signal ? { signal } : {});
    } catch (err) {
      if (err instanceof ApiError && err.code === 404) return undefined;
      throw err;
    }
    const spec = this.lease.spec ?? {};
    return {
      holderIdentity: spec.holderIdentity ?? '',
      leaseDurationSeconds: spec.leaseDurationSeconds ?? 0,
      acquireTime: parseTime(spec.acquireTime),
      renewTime: parseTime(spec.renewTime),
      leaderTransitions: spec.leaseTransitions ?? 0,
    };
  }

  async create(record: LeaderElectionRecord, signal?: AbortSignal): Promise<void> {
    this.lease = await this.leases.namespace(this.namespace).create(
      {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name: this.name, namespace: this.namespace },
        spec: leaseSpec(record),
      },
      signal ? { signal } : {},
    );
  }

  async update(record: LeaderElectionRecord, signal?: AbortSignal): Promise<void> {
    if (!this.lease)
      throw ApiError.conflict(
        { group: 'coordination.k8s.io', resource: 'leases' },
        this.name,
        'lease not initialized, call get or create first',
      );
    this.lease = await this.leases
      .namespace(this.namespace)
      .update({ ...this.lease, spec: leaseSpec(record) }, signal ? { signal } : {});
  }
}

function leaseSpec(record: LeaderElectionRecord): NonNullable<Lease['spec']> {
  return {
    holderIdentity: record.holderIdentity,
    leaseDurationSeconds: record.leaseDurationSeconds,
    acquireTime: metaV1MicroTime(record.acquireTime),
    renewTime: metaV1MicroTime(record.renewTime),
    leaseTransitions: record.leaderTransitions,
  };
}

/** metav1.MicroTime as JSON; kept under its old name (it is @listwatch/api's metaV1MicroTime). */
export { metaV1MicroTime as formatMicroTime } from '@listwatch/api';
