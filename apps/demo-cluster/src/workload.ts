import { isApiError, MERGE_PATCH_TYPE, type KubeObject } from '@listwatch/api';
import type { RestClient } from '@listwatch/client';
import { resources } from './controllers/objects.js';

/**
 * A steady stream of writes through the HTTP API, as controllers and kubectl users make them:
 * ConfigMaps created, changed and deleted in the `demo` namespace, one step per tick.
 */
export class Workload {
  private step = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly client: RestClient,
    private readonly namespace = 'demo',
  ) {}

  private async request(
    method: 'POST' | 'PATCH' | 'DELETE',
    path: string,
    body?: unknown,
    contentType = 'application/json',
  ): Promise<void> {
    await this.client.request({ method, path, body, contentType });
  }

  async ensureNamespace(): Promise<void> {
    try {
      await this.request('POST', '/api/v1/namespaces', {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: this.namespace },
      });
    } catch (err) {
      if (!isApiError(err) || err.code !== 409) throw err;
    }
  }

  /** The step the last run reached, from its ConfigMaps' `data.step` (-1: none there). */
  async lastStep(): Promise<number> {
    const list = await this.client
      .resource<KubeObject & { data?: { step?: string } }>(resources.configmaps)
      .namespace(this.namespace)
      .list({ labelSelector: 'app=demo' });
    return Math.max(
      -1,
      ...list.items.map((cm) => Number(cm.data?.step ?? -1)).filter(Number.isFinite),
    );
  }

  /**
   * Continues after the step a previous run reached, so that a restarted demo goes on where it
   * stopped (its ConfigMaps and their steps) instead of beginning again at config-0.
   */
  async resume(): Promise<void> {
    this.step = (await this.lastStep()) + 1;
  }

  /**
   * One write: create, then patch, then delete, cycling over five ConfigMaps. Each converges on
   * what the step wants whatever was left (a run stopped mid-cycle): a create of one that exists
   * patches it, a patch of one that is gone creates it, a delete of one that is gone is done.
   */
  async tick(): Promise<void> {
    const n = this.step++;
    const name = `config-${n % 5}`;
    const base = `/api/v1/namespaces/${this.namespace}/configmaps`;
    const create = () =>
      this.request('POST', base, {
        metadata: { name, labels: { app: 'demo' } },
        data: { step: String(n) },
      } satisfies KubeObject);
    const patch = () =>
      this.request('PATCH', `${base}/${name}`, { data: { step: String(n) } }, MERGE_PATCH_TYPE);
    const answered = async (
      write: () => Promise<void>,
      code: number,
      instead?: () => Promise<void>,
    ) => {
      try {
        await write();
      } catch (err) {
        if (!isApiError(err) || err.code !== code) throw err;
        await instead?.();
      }
    };
    switch (Math.floor(n / 5) % 3) {
      case 0:
        return answered(create, 409, patch);
      case 1:
        return answered(patch, 404, create);
      default:
        return answered(() => this.request('DELETE', `${base}/${name}`), 404);
    }
  }

  start(intervalMs: number): void {
    this.timer = setInterval(() => {
      // A write lost to an apiserver restart is the next step's to redo.
      this.tick().catch(() => undefined);
    }, intervalMs);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }
}
