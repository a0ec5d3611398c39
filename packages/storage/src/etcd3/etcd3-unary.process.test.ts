import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// A grpc-js call keeps its process alive until it is answered or its deadline passes; the lean
// path must too, while an idle session holds nothing open.

describe('etcd3 lean unary path and the process', () => {
  it('an awaited call keeps its process alive until its deadline fails it, then the process exits', async () => {
    const held = new Set<Socket>();
    const silent = createServer((socket) => {
      held.add(socket);
      socket.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const endpoint = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
      const script = fileURLToPath(new URL('./testdata/awaited-call.ts', import.meta.url));
      const child = spawn(
        process.execPath,
        ['--conditions=@listwatch/source', '--import', 'tsx', script, endpoint, '300'],
        { stdio: ['ignore', 'pipe', 'inherit'] },
      );
      let out = '';
      child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
      const [code] = (await once(child, 'exit')) as [number];
      expect(out.trim()).toBe('failed: 4 DEADLINE_EXCEEDED: Deadline exceeded');
      expect(code).toBe(0);
    } finally {
      for (const socket of held) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });
});
