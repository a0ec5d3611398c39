import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { findBuiltinResource } from '@listwatch/api';
import type { RunningApiServer } from '@listwatch/apiserver';
import { tempDir } from '@listwatch/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RestClient } from './rest/client.js';
import { eventually } from './testing/eventually.js';
import { configMap } from './testing/fixtures.js';
import { packageDir, runModule, typecheck } from './testing/typecheck.js';
import { startTestApiServer } from './testing/apiserver.js';

/** The first ```ts block of the package README: the example it opens with. */
function readmeExample(): string {
  const readme = readFileSync(join(packageDir, 'README.md'), 'utf8');
  const block = /```ts\n([\s\S]*?)```/.exec(readme);
  if (!block) throw new Error('the README has no ts example');
  return block[1]!;
}

describe("the README's opening example", () => {
  const code = readmeExample();

  it('is about 30 lines, as the issue asks (35 at most)', () => {
    expect(code.trim().split('\n').length).toBeLessThanOrEqual(35);
  });

  it('type-checks against the package as published (strict, the repository tsconfig)', () => {
    expect(typecheck(code, 'readme-example.virtual.ts')).toEqual([]);
  }, 60_000);

  describe('run against an apiserver named by $KUBECONFIG', () => {
    let apiserver: RunningApiServer;
    let dir: { path: string; remove(): void };

    beforeAll(async () => {
      apiserver = await startTestApiServer();
      dir = tempDir('listwatch-readme-');
    });
    afterAll(async () => {
      await apiserver.close();
      dir.remove();
    });

    it('reconciles a ConfigMap as it is created and deleted, then stops cleanly on SIGINT', async () => {
      const kubeconfig = join(dir.path, 'config');
      writeFileSync(
        kubeconfig,
        `apiVersion: v1
kind: Config
current-context: local
clusters: [{name: local, cluster: {server: '${apiserver.url}'}}]
users: [{name: me, user: {token: t}}]
contexts: [{name: local, context: {cluster: local, user: me, namespace: default}}]
`,
      );
      const run = runModule(code, { KUBECONFIG: kubeconfig });

      const writer = new RestClient({ server: apiserver.url });
      try {
        const cms = writer.resource(findBuiltinResource('configmaps')!).namespace('default');
        await cms.create({ ...configMap('default', 'settings'), data: { a: '1', b: '2' } });
        await eventually(() => expect(run.out).toContain('default/settings: 2 keys'), 20_000);
        await cms.delete('settings');
        await eventually(() => expect(run.out).toContain('default/settings: deleted'), 20_000);
      } finally {
        await writer.close();
        run.child.kill('SIGINT');
      }
      const stopped = await Promise.race([
        run.exited,
        new Promise<string>((resolve) => setTimeout(() => resolve('still running'), 10_000)),
      ]);
      expect(stopped, run.err).toBe(0);
    }, 60_000);
  });
});
