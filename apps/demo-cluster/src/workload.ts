import { MERGE_PATCH_TYPE, type KubeObject } from '@listwatch/api';

/**
 * A steady stream of writes through the HTTP API, as controllers and kubectl users make them:
 * ConfigMaps created, changed and deleted in the `demo` namespace, one step per tick.
 */
export class Workload {
  private step = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly url: string,
    private readonly namespace = 'demo',
  ) {}

  private async request(
    method: string,
    path: string,
    body?: unknown,
    contentType = 'application/json',
  ): Promise<Response> {
    return fetch(`${this.url}${path}`, {
      method,
      headers: { 'Content-Type': contentType, Accept: 'application/json' },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
  }

  async ensureNamespace(): Promise<void> {
    const res = await this.request('POST', '/api/v1/namespaces', {
      metadata: { name: this.namespace },
    });
    if (res.status !== 201 && res.status !== 409)
      throw new Error(`creating namespace: HTTP ${res.status}`);
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
