import { spawnSource, tempDir } from '@listwatch/testing';
import { execFileSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { client, cm } from './testing/test-server.js';

// The embedded (sqlite) backend under the faults a machine deals it, as `pnpm apiserver` runs:
// kill -9 in the middle of writes, a full disk (a small tmpfs), a corrupted database file.
// What was acknowledged is never lost; what cannot be done is a clear error.

const pkg = fileURLToPath(new URL('..', import.meta.url));
const dir = tempDir('listwatch-embedded-faults-');
afterAll(() => dir.remove());

interface Server {
  child: ChildProcess;
  output: () => string;
  url(): Promise<string>;
  exit: Promise<unknown[]>;
}

function start(dataDir: string): Server {
  const { child, output, exit } = spawnSource(pkg, 'src/main.ts', [
    '--port=0',
    `--data-dir=${dataDir}`,
    '--log-level=warn',
  ]);
  return {
    child,
    exit,
    output,
    url: async () => {
      await expect.poll(output, { timeout: 30_000 }).toMatch(/serving on http:\/\/\S+/);
      return /serving on (\S+)/.exec(output())![1]!;
    },
  };
}

const objects = (url: string) =>
  client(url)
    .get<{ items: { metadata: { name: string; resourceVersion: string } }[] }>(
      '/api/v1/namespaces/default/configmaps',
    )
    .then((r) => new Map(r.body.items.map((o) => [o.metadata.name, o.metadata.resourceVersion])));

describe('the sqlite backend under machine faults', () => {
  it('kill -9 in the middle of concurrent writes loses no acknowledged write', async () => {
    const data = join(dir.path, 'kill');
    const first = start(data);
    const api = client(await first.url());
    const acked = new Map<string, string>();
    let n = 0;
    const writer = async () => {
      for (;;) {
        const name = `c${n++}`;
        const res = await api
          .post('/api/v1/namespaces/default/configmaps', cm(name))
          .catch(() => undefined);
        if (!res) return; // the connection died with the server
        if (res.status === 201)
          acked.set(
            name,
            (res.body as { metadata: { resourceVersion: string } }).metadata.resourceVersion,
          );
      }
    };
    const writers = Array.from({ length: 8 }, writer);
    await expect.poll(() => acked.size, { timeout: 30_000 }).toBeGreaterThan(200);
    first.child.kill('SIGKILL');
    await Promise.all(writers);
    await first.exit;

    const second = start(data);
    const stored = await objects(await second.url());
    for (const [name, rv] of acked) expect(stored.get(name), name).toBe(rv);
    second.child.kill('SIGTERM');
    await second.exit;
  });

  it('a full disk is a clear error for the write that does not fit; nothing acknowledged is lost, and writes resume once there is room', async () => {
    const mount = join(dir.path, 'tmpfs');
    mkdirSync(mount, { recursive: true });
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=4m', 'tmpfs', mount]);
    let server: Server | undefined;
    try {
      const filler = join(mount, 'filler');
      writeFileSync(filler, Buffer.alloc(1024 * 1024));
      server = start(join(mount, 'data'));
      const api = client(await server.url());
      const big = (name: string) => ({ ...cm(name), data: { blob: 'x'.repeat(200_000) } });
      const acked: string[] = [];
      let failure: { status: number; body: { kind?: string; message?: string } } | undefined;
      for (let i = 0; i < 40 && !failure; i++) {
        const res = await api.post('/api/v1/namespaces/default/configmaps', big(`big${i}`));
        if (res.status === 201) acked.push(`big${i}`);
        else failure = res;
      }
      expect(failure, 'the disk filled up').toBeDefined();
      // kube-apiserver answers etcd's "database space exceeded" as an InternalError too.
      expect(failure!.status).toBe(500);
      expect(failure!.body.kind).toBe('Status');
      expect(failure!.body.message).toMatch(/disk is full/);
      // Everything acknowledged is there, from the cache and from storage after a restart.
      const stored = await objects(await server.url());
      for (const name of acked) expect(stored.has(name), name).toBe(true);
      rmSync(filler);
      const after = await api.post('/api/v1/namespaces/default/configmaps', big('after'));
      expect(after.status).toBe(201);
      server.child.kill('SIGTERM');
      await server.exit;
      server = start(join(mount, 'data'));
      const restarted = await objects(await server.url());
      for (const name of [...acked, 'after']) expect(restarted.has(name), name).toBe(true);
    } finally {
      server?.child.kill('SIGKILL');
      if (server) await server.exit;
      execFileSync('umount', [mount]);
    }
  });

  it('a corrupted database file stops the server with an error naming it, and is left as it was', async () => {
    const data = join(dir.path, 'corrupt');
    const first = start(data);
    await first.url();
    first.child.kill('SIGTERM');
    await first.exit;
    const file = execFileSync('find', [data, '-name', '*.db'], { encoding: 'utf8' })
      .trim()
      .split('\n')[0]!;
    const bytes = readFileSync(file);
    bytes.write('this is not sqlite', 0);
    writeFileSync(file, bytes);
    const second = start(data);
    const [code] = await second.exit;
    expect(code).not.toBe(0);
    expect(second.output()).toContain(file);
    expect(second.output()).toMatch(/file is not a database/);
    expect(readFileSync(file).equals(bytes)).toBe(true);
  });
});
