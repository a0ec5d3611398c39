import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { tempDir } from '@listwatch/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { SqliteStorage } from './sqlite-storage.js';

const dir = tempDir('listwatch-sqlite-crash-');
afterAll(() => dir.remove());

describe('sqlite: a writer process', () => {
  it('loses nothing a process acknowledged when that process is killed with SIGKILL mid-stream', async () => {
    const file = join(dir.path, 'store.db');
    const writer = fileURLToPath(new URL('./testdata/crash-writer.ts', import.meta.url));
    const child = spawn(
      process.execPath,
      ['--conditions=@listwatch/source', '--import', 'tsx', writer, file],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    const acked: { name: string; revision: number }[] = [];
    const exited = once(child, 'exit');
    for await (const line of createInterface({ input: child.stdout })) {
      const [name, revision] = line.split(' ');
      acked.push({ name: name!, revision: Number(revision) });
      if (acked.length === 50) child.kill('SIGKILL');
    }
    await exited;
    expect(acked.length).toBeGreaterThanOrEqual(50);
    const storage = new SqliteStorage({ file, compactionInterval: 0 });
    try {
      for (const { name, revision } of acked) {
        const object = await storage.get(`/registry/configmaps/ns/${name}`);
        expect(object?.metadata.resourceVersion).toBe(String(revision));
      }
      const last = acked.at(-1)!.revision;
      expect(await storage.currentRevision()).toBeGreaterThanOrEqual(last);
      const next = await storage.create('/registry/configmaps/ns/after-crash', {
        metadata: { name: 'after-crash', namespace: 'ns' },
      });
      expect(Number(next.metadata.resourceVersion)).toBeGreaterThan(last);
    } finally {
      await storage.close();
    }
  });
});
