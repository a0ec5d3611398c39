import { qualifiedResource } from '@listwatch/api';
import type Koa from 'koa';
import type { ServerContext } from '../server-context.js';

// /healthz, /livez and /readyz as k8s.io/apiserver pkg/server/healthz/healthz.go serves them:
// "ok", or with ?verbose one `[+]<check> ok` line per check and `<name> check passed`; a failing
// check makes it a 500 listing every check (`[-]<check> failed: reason withheld`);
// ?exclude=<check> skips one; /<name>/<check> runs one.

/** One named check; it resolves to why it failed, or undefined when it passed. */
interface HealthCheck {
  name: string;
  check(): Promise<string | undefined> | string | undefined;
}

/** --etcd-healthcheck-timeout's default. */
const STORAGE_TIMEOUT_MS = 2000;

function checks(server: ServerContext): Record<'healthz' | 'livez' | 'readyz', HealthCheck[]> {
  const ping: HealthCheck = { name: 'ping', check: () => undefined };
  // Logging here never blocks (kube's checks that klog still flushes).
  const log: HealthCheck = { name: 'log', check: () => undefined };
  // The storage, whichever backend, under kube's name for it.
  const etcd: HealthCheck = {
    name: 'etcd',
    check: async () => {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<string>((resolve) => {
        timer = setTimeout(() => resolve('storage did not answer in time'), STORAGE_TIMEOUT_MS);
      });
      try {
        return await Promise.race([
          server.registry.storage.currentRevision().then(
            () => undefined,
            (err: unknown) => (err instanceof Error ? err.message : String(err)),
          ),
          timeout,
        ]);
      } finally {
        clearTimeout(timer);
      }
    },
  };
  // The watch caches are this server's informers: ready once each has its initial list.
  const informerSync: HealthCheck = {
    name: 'informer-sync',
    check: () => {
      const notReady = server.registry.all
        .filter((e) => !e.source.isReady)
        .map((e) => qualifiedResource(e.definition));
      return notReady.length
        ? `${notReady.length} watch caches not ready yet: [${notReady.join(' ')}]`
        : undefined;
    },
  };
  const shutdown: HealthCheck = {
    name: 'shutdown',
    check: () => (server.shuttingDown ? 'process is shutting down' : undefined),
  };
  return {
    healthz: [ping, log, etcd],
    livez: [ping, log, etcd],
    readyz: [ping, log, etcd, informerSync, shutdown],
  };
}

function plainText(ctx: Koa.Context, status: number, body: string): void {
  ctx.status = status;
  ctx.type = 'text/plain; charset=utf-8';
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.body = body;
}

/** handleRootHealth: every check not excluded, in order. */
async function serveRoot(ctx: Koa.Context, name: string, list: HealthCheck[]): Promise<void> {
  const excluded = new Set(new URLSearchParams(ctx.querystring).getAll('exclude'));
  let output = '';
  let failed = false;
  for (const check of list) {
    if (excluded.delete(check.name)) {
      output += `[+]${check.name} excluded: ok\n`;
      continue;
    }
    if ((await check.check()) !== undefined) {
      // The reason stays out of a public endpoint; /<name>/<check> gives it.
      output += `[-]${check.name} failed: reason withheld\n`;
      failed = true;
    } else {
      output += `[+]${check.name} ok\n`;
    }
  }
  if (excluded.size > 0) {
    const names = [...excluded].sort().map((n) => JSON.stringify(n));
    output += `warn: some health checks cannot be excluded: no matches for ${names.join(',')}\n`;
  }
  // http.Error ends the body with a newline.
  if (failed) return plainText(ctx, 500, `${output}${name} check failed\n`);
  const verbose = new URLSearchParams(ctx.querystring).has('verbose');
  plainText(ctx, 200, verbose ? `${output}${name} check passed\n` : 'ok');
}

/** /healthz, /livez, /readyz (ready once every watch cache is, until shutdown) and /metrics. */
export function health(server: ServerContext): Koa.Middleware {
  const byPath = checks(server);
  return async (ctx, next): Promise<void> => {
    if (ctx.path === '/metrics') {
      ctx.type = server.metrics.registry.contentType;
      ctx.body = await server.metrics.registry.metrics();
      return;
    }
    const [, root = '', one, extra] = ctx.path.split('/');
    const list = Object.hasOwn(byPath, root)
      ? (byPath as Record<string, HealthCheck[]>)[root]
      : undefined;
    const check = one === undefined ? undefined : list?.find((c) => c.name === one);
    if (!list || extra !== undefined || (one !== undefined && !check)) {
      await next();
      return;
    }
    if (!check) {
      await serveRoot(ctx, root, list);
      return;
    }
    const reason = await check.check();
    if (reason !== undefined) return plainText(ctx, 500, `internal server error: ${reason}\n`);
    plainText(ctx, 200, 'ok');
  };
}
