import type { KubeList, KubeObject, Status } from '@listwatch/api';
import { describe, expect, it } from 'vitest';
import {
  eventually,
  e2eForFile,
  uniqueName,
  webDeployment,
  yamlManifest,
} from './e2e.test-helper.js';

// The real kubectl 1.32 (/usr/bin/kubectl) against a real apiserver on loopback, each command
// run the way a new user runs it, its output and its effects checked. `kubectl scale` and
// `kubectl delete pod` have files of their own (scale.e2e.test.ts, pod-deletion.e2e.test.ts).

const e2e = e2eForFile();

const configMap = (name: string, data: Record<string, string> = { mode: 'fast' }): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name },
  data,
});

const pod = (name: string, nodeName?: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, labels: { app: name } },
  spec: { ...(nodeName ? { nodeName } : {}), containers: [{ name: 'main', image: 'nginx' }] },
});

/** The rows of a kubectl table, split on runs of spaces. */
function rows(stdout: string): string[][] {
  return stdout
    .trim()
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => l.trim().split(/\s{2,}|\s+/));
}

describe('kubectl get', () => {
  it('get pods -A lists the pods of every namespace with a NAMESPACE column', async () => {
    const [a, b] = [await e2e.api.namespace('pods-a'), await e2e.api.namespace('pods-b')];
    expect((await e2e.api.post(`/api/v1/namespaces/${a}/pods`, pod('one'))).status).toBe(201);
    expect((await e2e.api.post(`/api/v1/namespaces/${b}/pods`, pod('two'))).status).toBe(201);
    const { code, stdout, stderr } = await e2e.kubectl.run(['get', 'pods', '-A']);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const table = rows(stdout);
    expect(table[0]).toEqual(['NAMESPACE', 'NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE']);
    expect(table).toContainEqual([
      a,
      'one',
      '0/1',
      'Pending',
      '0',
      expect.stringMatching(/^\d+s$/),
    ]);
    expect(table).toContainEqual([
      b,
      'two',
      '0/1',
      'Pending',
      '0',
      expect.stringMatching(/^\d+s$/),
    ]);
  });

  it('get pods -o wide shows the NODE a pod is bound to', async () => {
    const ns = await e2e.api.namespace('wide');
    await e2e.api.post(`/api/v1/namespaces/${ns}/pods`, pod('bound', 'node-7'));
    const { code, stdout } = await e2e.kubectl.run(['get', 'pods', '-n', ns, '-o', 'wide']);
    expect(code).toBe(0);
    const [header, row] = stdout.trim().split('\n');
    expect(header?.split(/\s{2,}/)).toEqual([
      'NAME',
      'READY',
      'STATUS',
      'RESTARTS',
      'AGE',
      'IP',
      'NODE',
      'NOMINATED NODE',
      'READINESS GATES',
    ]);
    expect(row?.split(/\s+/)).toEqual([
      'bound',
      '0/1',
      'Pending',
      '0',
      expect.stringMatching(/^\d+s$/),
      '<none>',
      'node-7',
      '<none>',
      '<none>',
    ]);
  });

  it('get configmaps -w prints the list, then a line for each create, update and delete', async () => {
    const ns = await e2e.api.namespace('watch');
    await e2e.api.post(`/api/v1/namespaces/${ns}/configmaps`, configMap('before'));
    const watch = e2e.kubectl.spawn(['get', 'configmaps', '-n', ns, '-w']);
    try {
      // The listed object is printed once the LIST is done; the WATCH starts right after it.
      await watch.waitForLine(/^before\s+1\s/);
      const base = `/api/v1/namespaces/${ns}/configmaps`;
      expect((await e2e.api.post(base, configMap('live'))).status).toBe(201);
      await watch.waitForLine(/^live\s+1\s/);
      const seen = watch.lines.length;
      expect((await e2e.api.patch(`${base}/live`, { data: { extra: 'x' } })).status).toBe(200);
      await watch.waitForLine(/^live\s+2\s/, seen);
      const updated = watch.lines.length;
      expect((await e2e.api.delete(`${base}/live`)).status).toBe(200);
      // The DELETED event prints the object's last state.
      await watch.waitForLine(/^live\s+2\s/, updated);
      expect(watch.lines[0]).toMatch(/^NAME\s+DATA\s+AGE$/);
      expect(watch.lines.filter((l) => l.startsWith('live'))).toHaveLength(3);
      expect(watch.exitCode).toBeUndefined();
    } finally {
      await watch.stop();
    }
  });

  it('get --output-watch-events names each event ADDED, MODIFIED, DELETED', async () => {
    const ns = await e2e.api.namespace('events');
    await e2e.api.post(`/api/v1/namespaces/${ns}/configmaps`, configMap('first'));
    const watch = e2e.kubectl.spawn(['get', 'cm', '-n', ns, '-w', '--output-watch-events']);
    try {
      await watch.waitForLine(/^ADDED\s+first\s/);
      await e2e.api.patch(`/api/v1/namespaces/${ns}/configmaps/first`, {
        data: { a: '1', b: '2' },
      });
      await watch.waitForLine(/^MODIFIED\s+first\s+3\s/);
      await e2e.api.delete(`/api/v1/namespaces/${ns}/configmaps/first`);
      await watch.waitForLine(/^DELETED\s+first\s+3\s/);
    } finally {
      await watch.stop();
    }
  });

  it('get deploy,rs prints a table per apps/v1 kind', async () => {
    const ns = await e2e.api.namespace('apps');
    const template = {
      metadata: { labels: { app: 'web' } },
      spec: { containers: [{ name: 'web', image: 'nginx' }] },
    };
    const spec = { replicas: 2, selector: { matchLabels: { app: 'web' } }, template };
    const deploy = await e2e.api.post(`/apis/apps/v1/namespaces/${ns}/deployments`, {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web' },
      spec,
    });
    expect(deploy.status).toBe(201);
    const rs = await e2e.api.post(`/apis/apps/v1/namespaces/${ns}/replicasets`, {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name: 'web-5d4f8', labels: { app: 'web' } },
      spec,
    });
    expect(rs.status).toBe(201);
    const { code, stdout, stderr } = await e2e.kubectl.run(['get', 'deploy,rs', '-n', ns]);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const [deployTable = '', rsTable = ''] = stdout.trim().split(/\n\s*\n/);
    expect(rows(deployTable)[0]).toEqual(['NAME', 'READY', 'UP-TO-DATE', 'AVAILABLE', 'AGE']);
    expect(rows(deployTable)[1]?.slice(0, 4)).toEqual(['deployment.apps/web', '0/2', '0', '0']);
    expect(rows(rsTable)[0]).toEqual(['NAME', 'DESIRED', 'CURRENT', 'READY', 'AGE']);
    expect(rows(rsTable)[1]?.slice(0, 4)).toEqual(['replicaset.apps/web-5d4f8', '2', '0', '0']);
  });

  it('get --raw prints the API response as is', async () => {
    const ns = await e2e.api.namespace('raw');
    await e2e.api.post(`/api/v1/namespaces/${ns}/configmaps`, configMap('raw'));
    const { code, stdout } = await e2e.kubectl.run([
      'get',
      '--raw',
      `/api/v1/namespaces/${ns}/configmaps`,
    ]);
    expect(code).toBe(0);
    const list = JSON.parse(stdout) as KubeList;
    expect(list).toMatchObject({ kind: 'ConfigMapList', apiVersion: 'v1' });
    expect(list.metadata.resourceVersion).toMatch(/^\d+$/);
    expect(list.items.map((i) => [i.metadata.name, i['data']])).toEqual([
      ['raw', { mode: 'fast' }],
    ]);
    const defaults = await e2e.kubectl.run([
      'get',
      '--raw',
      '/api/v1/namespaces/default/configmaps',
    ]);
    expect(JSON.parse(defaults.stdout)).toMatchObject({ kind: 'ConfigMapList', items: [] });
  });

  it('api-resources lists the served resources with their API versions and kinds', async () => {
    const { code, stdout, stderr } = await e2e.kubectl.run(['api-resources']);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const table = rows(stdout);
    expect(table[0]).toEqual(['NAME', 'SHORTNAMES', 'APIVERSION', 'NAMESPACED', 'KIND']);
    expect(table).toContainEqual(['pods', 'po', 'v1', 'true', 'Pod']);
    expect(table).toContainEqual(['namespaces', 'ns', 'v1', 'false', 'Namespace']);
    expect(table).toContainEqual(['deployments', 'deploy', 'apps/v1', 'true', 'Deployment']);
  });
});

describe('kubectl writes', () => {
  it('create -f with default validation creates every object of the manifest', async () => {
    const ns = await e2e.api.namespace('create');
    e2e.kubectl.write(
      'create.yaml',
      yamlManifest(configMap('settings'), webDeployment({ replicas: 1 })),
    );
    const { code, stdout, stderr } = await e2e.kubectl.run([
      'create',
      '-f',
      'create.yaml',
      '-n',
      ns,
    ]);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout.trim().split('\n')).toEqual([
      'configmap/settings created',
      'deployment.apps/web created',
    ]);
    expect(
      (await e2e.api.get(`/api/v1/namespaces/${ns}/configmaps/settings`)).body['data'],
    ).toEqual({
      mode: 'fast',
    });
    const web = await e2e.api.get(`/apis/apps/v1/namespaces/${ns}/deployments/web`);
    expect(web.body['spec']).toMatchObject({ replicas: 1 });
  });

  it('create -f with an unknown field fails with the strict decoding error kube-apiserver sends, creating nothing', async () => {
    const ns = await e2e.api.namespace('strict');
    e2e.kubectl.write(
      'strict.yaml',
      yamlManifest(webDeployment({ replicas: 1, spec: { foo: 'bar' } })),
    );
    const { code, stdout, stderr } = await e2e.kubectl.run([
      'create',
      '-f',
      'strict.yaml',
      '-n',
      ns,
    ]);
    expect(code).not.toBe(0);
    expect(stdout).toBe('');
    expect(stderr.trim()).toBe(
      'Error from server (BadRequest): error when creating "strict.yaml": Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "spec.foo"',
    );
    expect((await e2e.api.get(`/apis/apps/v1/namespaces/${ns}/deployments/web`)).status).toBe(404);
  });

  it('apply --validate=warn creates the object without the unknown fields and prints one warning each', async () => {
    const ns = await e2e.api.namespace('warn');
    e2e.kubectl.write(
      'warn.yaml',
      yamlManifest(
        webDeployment({
          replicas: 1,
          spec: { foo: 'bar' },
          container: { ports: [{ containerPort: 80, bogus: 1 }] },
        }),
      ),
    );
    const { code, stdout, stderr } = await e2e.kubectl.run([
      'apply',
      '-f',
      'warn.yaml',
      '-n',
      ns,
      '--validate=warn',
    ]);
    expect(code).toBe(0);
    expect(stdout.trim()).toBe('deployment.apps/web created');
    expect(stderr.trim().split('\n')).toEqual([
      'Warning: unknown field "spec.foo"',
      'Warning: unknown field "spec.template.spec.containers[0].ports[0].bogus"',
    ]);
    const web = await e2e.api.get(`/apis/apps/v1/namespaces/${ns}/deployments/web`);
    expect(web.body['spec']).not.toHaveProperty('foo');
    expect(web.body['spec']).toMatchObject({
      template: { spec: { containers: [{ ports: [{ containerPort: 80 }] }] } },
    });
  });

  it('apply creates, applies a changed manifest over it, and records the last applied configuration', async () => {
    const ns = await e2e.api.namespace('apply');
    e2e.kubectl.write('apply.yaml', yamlManifest(webDeployment({ replicas: 2 })));
    const first = await e2e.kubectl.run(['apply', '-f', 'apply.yaml', '-n', ns]);
    expect(first.stderr).toBe('');
    expect(first.stdout.trim()).toBe('deployment.apps/web created');
    e2e.kubectl.write(
      'apply.yaml',
      yamlManifest(webDeployment({ replicas: 3, image: 'nginx:1.27' })),
    );
    const second = await e2e.kubectl.run(['apply', '-f', 'apply.yaml', '-n', ns]);
    expect(second.stderr).toBe('');
    expect(second.stdout.trim()).toBe('deployment.apps/web configured');
    const again = await e2e.kubectl.run(['apply', '-f', 'apply.yaml', '-n', ns]);
    expect(again.stdout.trim()).toBe('deployment.apps/web unchanged');
    const web = (await e2e.api.get(`/apis/apps/v1/namespaces/${ns}/deployments/web`)).body;
    expect(web['spec']).toMatchObject({
      replicas: 3,
      template: { spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] } },
    });
    expect(web.metadata.generation).toBe(2);
    const lastApplied = JSON.parse(
      web.metadata.annotations?.['kubectl.kubernetes.io/last-applied-configuration'] ?? '{}',
    ) as KubeObject;
    expect(lastApplied).toMatchObject({
      kind: 'Deployment',
      metadata: { name: 'web', namespace: ns },
      spec: { replicas: 3 },
    });
  });

  it('diff shows what a re-apply would change, from a server-side dry run that writes nothing', async () => {
    const ns = await e2e.api.namespace('diff');
    e2e.kubectl.write('diff.yaml', yamlManifest(webDeployment({ replicas: 2 })));
    expect((await e2e.kubectl.run(['apply', '-f', 'diff.yaml', '-n', ns])).code).toBe(0);
    e2e.kubectl.write('diff.yaml', yamlManifest(webDeployment({ replicas: 3 })));
    const { code, stdout, stderr } = await e2e.kubectl.run(['diff', '-f', 'diff.yaml', '-n', ns]);
    expect(stderr).toBe('');
    expect(code).toBe(1); // diff's "there are differences"
    const changes = stdout.split('\n').filter((l) => /^[-+] /.test(l));
    expect(changes).toEqual([
      '-  generation: 1',
      '+  generation: 2',
      '-  replicas: 2',
      '+  replicas: 3',
    ]);
    const web = (await e2e.api.get(`/apis/apps/v1/namespaces/${ns}/deployments/web`)).body;
    expect(web['spec']).toMatchObject({ replicas: 2 });
  });

  it('label adds a label that label selectors then find', async () => {
    const ns = await e2e.api.namespace('label');
    await e2e.api.post(`/api/v1/namespaces/${ns}/configmaps`, configMap('tagged'));
    await e2e.api.post(`/api/v1/namespaces/${ns}/configmaps`, configMap('plain'));
    const labeled = await e2e.kubectl.run(['label', 'configmap', 'tagged', 'tier=front', '-n', ns]);
    expect(labeled.stdout.trim()).toBe('configmap/tagged labeled');
    expect(
      (await e2e.api.get(`/api/v1/namespaces/${ns}/configmaps/tagged`)).body.metadata.labels,
    ).toEqual({
      tier: 'front',
    });
    const selected = await e2e.kubectl.run([
      'get',
      'cm',
      '-n',
      ns,
      '-l',
      'tier=front',
      '-o',
      'name',
    ]);
    expect(selected.stdout.trim()).toBe('configmap/tagged');
    const overwrite = await e2e.kubectl.run(['label', 'cm', 'tagged', 'tier=back', '-n', ns]);
    expect(overwrite.code).not.toBe(0);
    expect(overwrite.stderr).toContain("'tier' already has a value (front)");
  });

  it('edit opens the object in KUBE_EDITOR and saves what the editor wrote', async () => {
    const ns = await e2e.api.namespace('edit');
    await e2e.api.post(`/api/v1/namespaces/${ns}/configmaps`, configMap('settings'));
    const editor = e2e.kubectl.write(
      'editor.sh',
      `#!/bin/sh\nsed -i 's/mode: fast/mode: slow/' "$1"\n`,
    );
    const { code, stdout, stderr } = await e2e.kubectl.run(
      ['edit', 'configmap', 'settings', '-n', ns],
      {
        KUBE_EDITOR: editor,
      },
    );
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout.trim()).toBe('configmap/settings edited');
    expect(
      (await e2e.api.get(`/api/v1/namespaces/${ns}/configmaps/settings`)).body['data'],
    ).toEqual({
      mode: 'slow',
    });
  });

  it('delete removes the object and returns once it is gone', async () => {
    const ns = await e2e.api.namespace('delete');
    await e2e.api.post(`/api/v1/namespaces/${ns}/configmaps`, configMap('doomed'));
    // --timeout turns a wait that never ends into a failure instead of a hang.
    const { code, stdout } = await e2e.kubectl.run([
      'delete',
      'cm',
      'doomed',
      '-n',
      ns,
      '--timeout=20s',
    ]);
    expect(code).toBe(0);
    expect(stdout.trim()).toBe('configmap "doomed" deleted');
    expect((await e2e.api.get(`/api/v1/namespaces/${ns}/configmaps/doomed`)).status).toBe(404);
  });

  it('delete of an object with a finalizer waits on a field-selected watch until the finalizer is removed', async () => {
    const ns = await e2e.api.namespace('finalizer');
    const path = `/api/v1/namespaces/${ns}/configmaps/held`;
    await e2e.api.post(`/api/v1/namespaces/${ns}/configmaps`, {
      ...configMap('held'),
      metadata: { name: 'held', finalizers: ['example.com/hold'] },
    });
    const deleting = e2e.kubectl.spawn(['delete', 'cm', 'held', '-n', ns, '--timeout=20s', '-v=6']);
    try {
      const watching = new RegExp(
        `GET \\S+/namespaces/${ns}/configmaps\\?\\S*fieldSelector=metadata\\.name%3Dheld\\S*watch=true`,
      );
      await eventually(() => (watching.test(deleting.stderr) ? true : undefined), 'the wait watch');
      const held = await e2e.api.get(path);
      expect(held.body.metadata.deletionTimestamp).toBeDefined();
      expect(deleting.exitCode).toBeUndefined();
      const released = await e2e.api.patch(path, { metadata: { finalizers: null } });
      expect(released.status).toBe(200);
      expect(await deleting.exit()).toBe(0);
      expect(deleting.stdout.trim()).toBe('configmap "held" deleted');
      expect((await e2e.api.get(path)).status).toBe(404);
    } finally {
      await deleting.stop();
    }
  });
});

describe('kubectl namespaces', () => {
  it('create namespace, create configmap and create secret work, though kubectl sends them as protobuf', async () => {
    const ns = uniqueName('proto');
    const created = await e2e.kubectl.run(['create', 'namespace', ns]);
    expect(created.stderr).toBe('');
    expect(created.stdout.trim()).toBe(`namespace/${ns} created`);
    const namespace = (await e2e.api.get(`/api/v1/namespaces/${ns}`)).body;
    expect(namespace.metadata.labels).toEqual({ 'kubernetes.io/metadata.name': ns });
    expect(namespace['status']).toEqual({ phase: 'Active' });
    const cm = await e2e.kubectl.run([
      'create',
      'configmap',
      'settings',
      '-n',
      ns,
      '--from-literal=mode=fast',
      '--from-literal=empty=',
    ]);
    expect(cm.stdout.trim()).toBe('configmap/settings created');
    expect(
      (await e2e.api.get(`/api/v1/namespaces/${ns}/configmaps/settings`)).body['data'],
    ).toEqual({
      mode: 'fast',
      empty: '',
    });
    const secret = await e2e.kubectl.run([
      'create',
      'secret',
      'generic',
      'creds',
      '-n',
      ns,
      '--from-literal=user=admin',
    ]);
    expect(secret.stdout.trim()).toBe('secret/creds created');
    expect((await e2e.api.get(`/api/v1/namespaces/${ns}/secrets/creds`)).body).toMatchObject({
      type: 'Opaque',
      data: { user: Buffer.from('admin').toString('base64') },
    });
  });

  it('delete namespace leaves it Terminating, refusing new content, and kubectl waits until a PUT to finalize (the namespace controller) removes it', async () => {
    const ns = await e2e.api.namespace('doomed-ns');
    for (const name of ['a', 'b'])
      await e2e.api.post(`/api/v1/namespaces/${ns}/configmaps`, configMap(name));
    const deleting = e2e.kubectl.spawn(['delete', 'namespace', ns, '--timeout=20s', '-v=6']);
    try {
      const path = `/api/v1/namespaces/${ns}`;
      await eventually(async () => {
        const got = await e2e.api.get(path);
        return got.body.metadata.deletionTimestamp ? got : undefined;
      }, 'the namespace marked for deletion');
      const terminating = await e2e.api.get(path);
      expect(terminating.body['status']).toEqual({ phase: 'Terminating' });
      expect(terminating.body['spec']).toEqual({ finalizers: ['kubernetes'] });
      const refused = await e2e.api.post(`/api/v1/namespaces/${ns}/configmaps`, configMap('c'));
      expect(refused.status).toBe(403);
      // The content stays until a namespace controller deletes it.
      expect((await e2e.api.get(`${path}/configmaps/a`)).status).toBe(200);
      expect(deleting.exitCode).toBeUndefined();
      for (const name of ['a', 'b']) await e2e.api.delete(`${path}/configmaps/${name}`);
      const finalized = await e2e.api.put(`${path}/finalize`, {
        ...terminating.body,
        spec: { finalizers: [] },
      });
      expect(finalized.status).toBe(200);
      expect(await deleting.exit()).toBe(0);
      expect(deleting.stdout.trim()).toBe(`namespace "${ns}" deleted`);
      // After the DELETE, kubectl waited: it read the namespace back until it was gone (404), or
      // watched it by name while the namespace was still Terminating.
      const requests = [
        ...deleting.stderr.matchAll(/round_trippers\.go:\d+\] (\w+) (\S+) (\d{3})/g),
      ].map((m) => `${m[1] ?? ''} ${(m[2] ?? '').replace(e2e.server.url, '')} ${m[3] ?? ''}`);
      const deleted = requests.indexOf(`DELETE /api/v1/namespaces/${ns} 200`);
      expect(deleted).toBeGreaterThanOrEqual(0);
      expect(requests.slice(deleted + 1)).toContainEqual(
        expect.stringMatching(
          new RegExp(
            `^GET /api/v1/namespaces(/${ns} 404|\\?\\S*fieldSelector=metadata\\.name%3D${ns}\\S*watch=true 200)$`,
          ),
        ),
      );
      expect((await e2e.api.get(path)).status).toBe(404);
      const get = await e2e.kubectl.run(['get', 'ns', ns]);
      expect(get.stderr.trim()).toBe(`Error from server (NotFound): namespaces "${ns}" not found`);
    } finally {
      await deleting.stop();
    }
  });

  it('PUT namespaces/{name}/finalize keeps the status, refuses a bad finalizer name (422), and PATCH is not served on it', async () => {
    const ns = await e2e.api.namespace('finalize');
    const path = `/api/v1/namespaces/${ns}`;
    const current = (await e2e.api.get(path)).body;
    const bad = await e2e.api.put(`${path}/finalize`, {
      ...current,
      spec: { finalizers: ['not qualified'] },
    });
    expect(bad.status).toBe(422);
    const kept = await e2e.api.put(`${path}/finalize`, {
      ...current,
      spec: { finalizers: ['example.com/wait'] },
      status: { phase: 'Terminating' },
    });
    expect(kept.status).toBe(200);
    expect(kept.body['spec']).toEqual({ finalizers: ['example.com/wait'] });
    expect(kept.body['status']).toEqual({ phase: 'Active' });
    // FinalizeREST is an Updater only: its path has a PUT route, so another method is 405.
    expect((await e2e.api.patch(`${path}/finalize`, { spec: { finalizers: [] } })).status).toBe(
      405,
    );
  });
});

describe('kubectl secrets', () => {
  it('apply -f of a secret with stringData stores it as base64 data: jsonpath reads it, get shows DATA 1, a changed manifest updates it', async () => {
    const ns = await e2e.api.namespace('secret');
    const manifest = (value: string) =>
      `apiVersion: v1\nkind: Secret\nmetadata: {name: s}\nstringData: {a: ${value}}\n`;
    e2e.kubectl.write('secret.yaml', manifest('b'));
    const applied = await e2e.kubectl.run(['apply', '-f', 'secret.yaml', '-n', ns]);
    expect(applied.stderr).toBe('');
    expect(applied.stdout.trim()).toBe('secret/s created');
    const value = await e2e.kubectl.run([
      'get',
      'secret',
      's',
      '-n',
      ns,
      '-o',
      'jsonpath={.data.a}',
    ]);
    expect(value.stdout).toBe(Buffer.from('b').toString('base64'));
    const table = await e2e.kubectl.run(['get', 'secret', 's', '-n', ns]);
    expect(rows(table.stdout)).toEqual([
      ['NAME', 'TYPE', 'DATA', 'AGE'],
      ['s', 'Opaque', '1', expect.stringMatching(/^\d+s$/)],
    ]);
    // A re-apply sends stringData in a strategic merge patch: merged into data again.
    e2e.kubectl.write('secret.yaml', manifest('c'));
    const reapplied = await e2e.kubectl.run(['apply', '-f', 'secret.yaml', '-n', ns]);
    expect(reapplied.stderr).toBe('');
    expect(reapplied.stdout.trim()).toBe('secret/s configured');
    const stored = (await e2e.api.get(`/api/v1/namespaces/${ns}/secrets/s`)).body;
    expect(stored['data']).toEqual({ a: Buffer.from('c').toString('base64') });
    expect(stored).not.toHaveProperty('stringData');
  });
});

describe('server-side field validation (fieldValidation)', () => {
  const body = (extra: Record<string, unknown>) => ({ ...configMap('fv'), ...extra });

  it('Strict refuses a create with every unknown field listed, as a 400 BadRequest', async () => {
    const ns = await e2e.api.namespace('fv-strict');
    const res = await e2e.api.post<Status>(
      `/api/v1/namespaces/${ns}/configmaps?fieldValidation=Strict`,
      body({ spec: { foo: 1 }, metadata: { name: 'fv', labelz: {} } }),
    );
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      reason: 'BadRequest',
      message:
        'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "metadata.labelz", unknown field "spec"',
    });
  });

  it('Warn (the default) stores the object without the unknown fields and sends a 299 warning for each', async () => {
    const ns = await e2e.api.namespace('fv-warn');
    const res = await e2e.api.post(
      `/api/v1/namespaces/${ns}/configmaps`,
      body({ spec: { foo: 1 } }),
    );
    expect(res.status).toBe(201);
    expect(res.headers.get('warning')).toBe('299 - "unknown field \\"spec\\""');
    expect(res.body).not.toHaveProperty('spec');
  });

  it('Ignore drops the unknown fields silently', async () => {
    const ns = await e2e.api.namespace('fv-ignore');
    const res = await e2e.api.post(
      `/api/v1/namespaces/${ns}/configmaps?fieldValidation=Ignore`,
      body({ spec: { foo: 1 } }),
    );
    expect(res.status).toBe(201);
    expect(res.headers.get('warning')).toBeNull();
    expect(res.body).not.toHaveProperty('spec');
  });

  it('an unsupported value is 422 Invalid on the write options', async () => {
    const res = await e2e.api.post<Status>(
      '/api/v1/namespaces/default/configmaps?fieldValidation=strict',
      configMap('fv'),
    );
    expect(res.status).toBe(422);
    expect(res.body.message).toBe(
      'CreateOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: "strict": supported values: "", "Ignore", "Strict", "Warn"',
    );
  });

  it('a Strict patch is refused with the strict decoding error of the patched object', async () => {
    const ns = await e2e.api.namespace('fv-patch');
    const base = `/api/v1/namespaces/${ns}/configmaps`;
    await e2e.api.post(base, configMap('fv'));
    const res = await e2e.api.patch<Status>(`${base}/fv?fieldValidation=Strict`, {
      dataa: { x: '1' },
    });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('strict decoding error: unknown field "dataa"');
    const put = await e2e.api.put<Status>(
      `${base}/fv?fieldValidation=Strict`,
      body({ extra: true }),
    );
    expect(put.status).toBe(400);
    expect(put.body.message).toBe(
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "extra"',
    );
  });

  it('an unknown field is found at any depth, as in the closed Go structs kube decodes into', async () => {
    const ns = await e2e.api.namespace('fv-deep');
    const res = await e2e.api.post<Status>(`/api/v1/namespaces/${ns}/pods?fieldValidation=Strict`, {
      ...pod('deep'),
      spec: {
        containers: [
          { name: 'main', image: 'nginx', newerField: true, resources: { limits: { cpu: 1 } } },
        ],
      },
    });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe(
      'Pod in version "v1" cannot be handled as a Pod: strict decoding error: unknown field "spec.containers[0].newerField"',
    );
  });
});
