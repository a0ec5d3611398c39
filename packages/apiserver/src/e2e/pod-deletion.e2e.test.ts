import type { KubeObject } from '@listwatch/api';
import { PYTHON } from '@listwatch/testing';
import { execFile } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { eventually, e2eForFile } from './e2e.test-helper.js';

// `kubectl delete pod` against graceful deletion (pkg/registry/core/pod/strategy.go
// CheckGracefulDelete): a pod on a node stays Terminating until its kubelet — here the test,
// with a zero-grace delete as the kubelet's status manager sends it — confirms it stopped.

const e2e = e2eForFile();

async function pod(ns: string, name: string, nodeName?: string): Promise<string> {
  const path = `/api/v1/namespaces/${ns}/pods`;
  const res = await e2e.api.post(path, {
    metadata: { name },
    spec: { ...(nodeName ? { nodeName } : {}), containers: [{ name: 'c', image: 'nginx' }] },
  });
  expect(res.status).toBe(201);
  return `${path}/${name}`;
}

/** What the kubelet sends once it has stopped the pod's containers. */
function confirm(path: string, uid: string | undefined) {
  return e2e.api.call('DELETE', path, {
    gracePeriodSeconds: 0,
    ...(uid ? { preconditions: { uid } } : {}),
  });
}

describe('kubectl delete pod', () => {
  it('--wait=false leaves a bound pod Terminating, as kubectl get pod shows; --grace-period=0 --force then removes it, and an unbound pod goes at once', async () => {
    const ns = await e2e.api.namespace('graceful');
    const web = await pod(ns, 'web', 'node-a');
    const deleted = await e2e.kubectl.run(['delete', 'pod', 'web', '-n', ns, '--wait=false']);
    expect(deleted.stderr).toBe('');
    expect(deleted.stdout.trim()).toBe('pod "web" deleted');
    const got = await e2e.kubectl.run(['get', 'pod', 'web', '-n', ns, '--no-headers']);
    expect(got.stdout.trim().split(/\s+/)[2]).toBe('Terminating');
    const grace = await e2e.kubectl.run([
      'get',
      'pod',
      'web',
      '-n',
      ns,
      '-o',
      'jsonpath={.metadata.deletionGracePeriodSeconds}',
    ]);
    expect(grace.stdout).toBe('30');
    const forced = await e2e.kubectl.run([
      'delete',
      'pod',
      'web',
      '-n',
      ns,
      '--grace-period=0',
      '--force',
    ]);
    expect(forced.code).toBe(0);
    expect(forced.stderr).toContain('Immediate deletion does not wait for confirmation');
    expect(forced.stdout.trim()).toBe('pod "web" force deleted');
    expect((await e2e.api.get(web)).status).toBe(404);
    const unbound = await pod(ns, 'unbound');
    const plain = await e2e.kubectl.run(['delete', 'pod', 'unbound', '-n', ns, '--timeout=20s']);
    expect(plain.stderr).toBe('');
    expect(plain.stdout.trim()).toBe('pod "unbound" deleted');
    expect((await e2e.api.get(unbound)).status).toBe(404);
  });

  it('waits for a bound pod until its kubelet confirms with a zero-grace delete, then returns', async () => {
    const ns = await e2e.api.namespace('graceful');
    const path = await pod(ns, 'web', 'node-a');
    const deleting = e2e.kubectl.spawn(['delete', 'pod', 'web', '-n', ns, '--timeout=30s']);
    try {
      const marked = await eventually(async () => {
        const current = (await e2e.api.get(path)).body;
        return current.metadata.deletionTimestamp ? current : undefined;
      }, 'the pod to be marked for deletion');
      // kubectl is still waiting: the pod is there.
      await new Promise((r) => setTimeout(r, 300));
      expect(deleting.exitCode).toBeUndefined();
      expect((await confirm(path, marked.metadata.uid)).status).toBe(200);
      expect(await deleting.exit()).toBe(0);
      expect(deleting.stdout.trim()).toBe('pod "web" deleted');
      expect((await e2e.api.get(path)).status).toBe(404);
    } finally {
      await deleting.stop();
    }
  });

  it('the Python client’s delete_namespaced_pod answers the Terminating pod; a zero grace period removes it', async () => {
    const ns = await e2e.api.namespace('graceful');
    const path = await pod(ns, 'web', 'node-a');
    const script = `
import sys
from kubernetes import client
c = client.Configuration(); c.host = sys.argv[1]
core = client.CoreV1Api(client.ApiClient(c))
marked = core.delete_namespaced_pod("web", sys.argv[2])
print(marked.kind, marked.metadata.deletion_grace_period_seconds, marked.metadata.deletion_timestamp is not None)
gone = core.delete_namespaced_pod("web", sys.argv[2], grace_period_seconds=0)
print(gone.kind, gone.metadata.deletion_grace_period_seconds)
`;
    const out = await new Promise<string>((resolve, reject) =>
      execFile(PYTHON, ['-c', script, e2e.server.url, ns], (err, stdout, stderr) =>
        err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout),
      ),
    );
    expect(out.trim().split('\n')).toEqual(['Pod 30 True', 'Pod 0']);
    expect((await e2e.api.get<KubeObject>(path)).status).toBe(404);
  });
});
