import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunningApiServer } from '@listwatch/apiserver';
import { tempDir } from '@listwatch/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RestClient } from './rest/client.js';
import { startTestApiServer } from './testing/apiserver.js';
import { eventually } from './testing/eventually.js';
import { runModule, typecheck } from './testing/typecheck.js';
import { coreV1 } from './typed/resources.js';

/**
 * A program written against @kubernetes/client-node's API — KubeConfig.loadFromDefault,
 * makeInformer with its list function, Watch — with only the import to change. It logs what it
 * hears about the ConfigMaps of $NS and stops once it has heard the delete twice.
 */
const program = (module: string): string => `
import * as k8s from '${module}';

const ns = process.env.NS!;
const path = \`/api/v1/namespaces/\${ns}/configmaps\`;
const kc = new k8s.KubeConfig();
kc.loadFromDefault();
const server = kc.getCurrentCluster()?.server;
const log = (line: string): void => console.log(line);
log(\`context \${kc.getCurrentContext()}\`);

const listFn = async (): Promise<k8s.KubernetesListObject<k8s.KubernetesObject>> => {
  const res = await fetch(\`\${server}\${path}\`);
  return (await res.json()) as k8s.KubernetesListObject<k8s.KubernetesObject>;
};
const informer = k8s.makeInformer<k8s.KubernetesObject>(kc, path, listFn);
let deletes = 0;
let stop: () => void = () => undefined;
const stopped = new Promise<void>((resolve) => (stop = resolve));
const deleted = (): void => {
  if (++deletes === 2) stop();
};
informer.on('add', (o) => log(\`informer add \${o.metadata?.name}\`));
informer.on('update', (o) => log(\`informer update \${o.metadata?.name}\`));
informer.on('delete', (o) => {
  log(\`informer delete \${o.metadata?.name}\`);
  deleted();
});
// client-node's informer reports its own stop() as an AbortError; ours does not.
let stopping = false;
informer.on('error', (err) => {
  if (!stopping) log(\`informer error \${String(err)}\`);
});
await informer.start();

const watch = new k8s.Watch(kc);
const req = await watch.watch(
  path,
  { allowWatchBookmarks: true },
  (phase, obj) => {
    if (phase === 'BOOKMARK') return;
    log(\`watch \${phase} \${obj.metadata.name}\`);
    if (phase === 'DELETED') deleted();
  },
  () => log('watch done'),
);
log('ready');
await stopped;
stopping = true;
req.abort();
await informer.stop();
await new Promise((resolve) => setTimeout(resolve, 100));
log('stopped');
`;

describe("a program written against @kubernetes/client-node's API", () => {
  let apiserver: RunningApiServer;
  let dir: { path: string; remove(): void };
  let kubeconfig: string;
  let client: RestClient;

  beforeAll(async () => {
    apiserver = await startTestApiServer();
    client = new RestClient({ server: apiserver.url });
    dir = tempDir('listwatch-client-node-');
    kubeconfig = join(dir.path, 'config');
    writeFileSync(
      kubeconfig,
      `apiVersion: v1
kind: Config
current-context: local
clusters: [{name: local, cluster: {server: '${apiserver.url}', insecure-skip-tls-verify: true}}]
users: [{name: me, user: {token: t}}]
contexts: [{name: local, context: {cluster: local, user: me, namespace: default}}]
`,
    );
  });
  afterAll(async () => {
    await client.close();
    await apiserver.close();
    dir.remove();
  });

  it('type-checks with either import', () => {
    expect(typecheck(program('@kubernetes/client-node'), 'client-node.virtual.ts')).toEqual([]);
    expect(typecheck(program('@listwatch/client'), 'listwatch.virtual.ts')).toEqual([]);
  }, 120_000);

  /** Runs the program on its own namespace, writes a ConfigMap's life, returns what it logged. */
  async function run(module: string, ns: string): Promise<string[]> {
    await client.resource(coreV1.namespaces).create({ metadata: { name: ns } });
    const run = runModule(program(module), { KUBECONFIG: kubeconfig, NS: ns });
    await eventually(() => expect(run.out, run.err).toContain('ready'), 20_000);
    const cms = client.resource(coreV1.configmaps).namespace(ns);
    await cms.create({ metadata: { name: 'settings' }, data: { a: '1' } });
    await cms.patch('settings', { data: { a: '2' } });
    await cms.delete('settings');
    expect(await run.exited, run.err).toBe(0);
    return run.out.trim().split('\n').sort();
  }

  it('hears the same events, in the same shape, from client-node and from @listwatch/client', async () => {
    const theirs = await run('@kubernetes/client-node', 'client-node');
    const ours = await run('@listwatch/client', 'listwatch');
    expect(theirs).toEqual([
      'context local',
      'informer add settings',
      'informer delete settings',
      'informer update settings',
      'ready',
      'stopped',
      'watch ADDED settings',
      'watch DELETED settings',
      'watch MODIFIED settings',
      'watch done',
    ]);
    expect(ours).toEqual(theirs);
  }, 60_000);
});
