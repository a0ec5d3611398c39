import { silentLogger } from '@listwatch/api';
import { startApiServer, type ApiServerOptions, type RunningApiServer } from '@listwatch/apiserver';
import { MemoryStorage } from '@listwatch/storage';

/**
 * Our apiserver as the client's tests run it: on a free port, over memory storage, silent;
 * `options` add to that or replace it (a watch cache window, TLS, another backend).
 */
export function startTestApiServer(options: ApiServerOptions = {}): Promise<RunningApiServer> {
  return startApiServer({
    port: 0,
    storage: new MemoryStorage(),
    logger: silentLogger,
    ...options,
  });
}
