import { spawnSource, tempDir } from '@listwatch/testing';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { client, cm, openWatch } from './testing/test-server.js';

describe('pnpm apiserver', () => {
  it('prints its URL once ready; on SIGTERM it ends watches cleanly, keeps every acknowledged write and exits 0', async () => {
    const dir = tempDir('listwatch-sigterm-');
    const pkg = fileURLToPath(new URL('..', import.meta.url));
    const start = () =>
      spawnSource(pkg, 'src/main.ts', ['--port=0', `--data-dir=${dir.path}`, '--log-level=warn']);
    try {
      const first = start();
      await expect
        .poll(first.output, { timeout: 30_000 })
        .toMatch(/serving on http:\/\/127\.0\.0\.1:\d+/);
      const url = /serving on (\S+)/.exec(first.output())![1]!;
      const api = client(url);
      const watch = openWatch(
        url,
        '/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=0',
      );
      const writes = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          api.post(`/api/v1/namespaces/default/configmaps`, cm(`c${i}`)),
        ),
      );
      expect(writes.every((w) => w.status === 201)).toBe(true);
      await watch.take(20);
      const exited = once(first.child, 'exit');
      first.child.kill('SIGTERM');
      const [code] = (await exited) as [number];
      expect(code).toBe(0);
      await expect.poll(() => watch.ended).toBe(true);
      await watch.close();
      const second = start();
      await expect.poll(second.output, { timeout: 30_000 }).toMatch(/serving on (\S+)/);
      const url2 = /serving on (\S+)/.exec(second.output())![1]!;
      const list = await client(url2).get<{ items: unknown[] }>(
        '/api/v1/namespaces/default/configmaps',
      );
      expect(list.body.items).toHaveLength(20);
      second.child.kill('SIGTERM');
      await once(second.child, 'exit');
    } finally {
      dir.remove();
    }
  });
});
