import { ApiError, type KubeObject } from '@listwatch/api';
import { describe, expect, it } from 'vitest';
import { Reflector } from './cache/reflector.js';
import { newStore } from './cache/store.js';
import { jsonLineLogger, type ListerWatcher } from './index.js';
import { eventually } from './testing/eventually.js';

describe("the client's logging", () => {
  it('never writes a token, a password or Secret data, even when a server error quotes them', async () => {
    const lines: string[] = [];
    const logger = jsonLineLogger({ level: 'debug', write: (l) => lines.push(l) });
    // A proxy in front of the apiserver that echoes the credentials it refused.
    const refused = new ApiError({
      code: 401,
      reason: 'Unauthorized',
      message: 'Authorization: Bearer client-t0ken refused for http://admin:hunter2@proxy:3128',
    });
    const listerWatcher: ListerWatcher<KubeObject> = {
      list: () => Promise.reject(refused),
      watch: () => Promise.reject(refused),
    };
    const stop = new AbortController();
    const reflector = new Reflector<KubeObject>({
      listerWatcher,
      store: newStore(),
      logger,
      backoff: { initialMs: 5, maxMs: 10 },
    });
    void reflector.run(stop.signal);
    await eventually(() => expect(lines.join('\n')).toContain('failed to list'));
    stop.abort();
    logger.error('exec plugin output', {
      status: { token: 'exec-t0ken', 'client-key-data': 'a2V5' },
      object: { kind: 'Secret', metadata: { name: 's' }, data: { password: 'aHVudGVyMg==' } },
    });

    const log = lines.join('\n');
    expect(log).toContain('Bearer [redacted]');
    expect(log).not.toMatch(/client-t0ken|hunter2|exec-t0ken|a2V5|aHVudGVyMg==/);
  });
});
