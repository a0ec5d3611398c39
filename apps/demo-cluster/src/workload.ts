import { isApiError, MERGE_PATCH_TYPE, type KubeObject } from '@listwatch/api';
import type { RestClient } from '@listwatch/client';

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

  /** One write: create, then patch, then delete, cycling over five ConfigMaps. */
  async tick(): Promise<void> {
    const n = this.step++;
    const name = `config-${n % 5}`;
    const base = `/api/v1/namespaces/${this.namespace}/configmaps`;
    switch (Math.floor(n / 5) % 3) {
      case 0: {
        const object: KubeObject = {
          metadata: { name, labels: { app: 'demo' } },
          data: { step: String(n) },
        };
        await this.request('POST', base, object);
        break;
      }
      case 1:
        await this.request(
          'PATCH',
          `${base}/${name}`,
          { data: { step: String(n) } },
          MERGE_PATCH_TYPE,
        );
        break;
      default:
        await this.request('DELETE', `${base}/${name}`);
    }
  }

  start(intervalMs: number): void {
    this.timer = setInterval(() => {
      this.tick().catch(() => undefined);
    }, intervalMs);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }
}
