import type { KubeObject, Status } from '@listwatch/api';
import { PYTHON } from '@listwatch/testing';
import { execFile } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { e2eForFile, webDeployment, yamlManifest } from './e2e.test-helper.js';

// `kubectl apply --server-side` (kubectl 1.32) against the apiserver: create, update, no-op,
// conflicts between field managers and --force-conflicts, pruning of fields a manager stops
// applying, and managedFields as `kubectl get --show-managed-fields` prints them on a real
// cluster (k8s.io/apiserver patch.go applyPatcher, apimachinery managedfields).

const e2e = e2eForFile();

const configMapYaml = (data: Record<string, string>) =>
  `apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
data:
${Object.entries(data)
  .map(([k, v]) => `  ${k}: "${v}"`)
  .join('\n')}
`;

interface ManagedEntry {
  manager: string;
  operation: string;
  apiVersion: string;
  time?: string;
  fieldsType: string;
  fieldsV1: unknown;
  subresource?: string;
}

async function apply(ns: string, file: string, text: string, ...flags: string[]) {
  e2e.kubectl.write(file, text);
  return e2e.kubectl.run(['apply', '--server-side', '-f', file, '-n', ns, ...flags]);
}

async function getYaml(ns: string, what: string): Promise<KubeObject> {
  const { code, stdout, stderr } = await e2e.kubectl.run([
    'get',
    what,
    '-n',
    ns,
    '-o',
    'yaml',
    '--show-managed-fields',
  ]);
  expect(stderr).toBe('');
  expect(code).toBe(0);
  return parse(stdout) as KubeObject;
}

const managed = (object: KubeObject) => object.metadata.managedFields as unknown as ManagedEntry[];

describe('kubectl apply --server-side', () => {
  it('creates the object, owned by kubectl with an Apply entry of its fields', async () => {
    const ns = await e2e.api.namespace('ssa-create');
    const { code, stdout, stderr } = await apply(ns, 'cm.yaml', configMapYaml({ key: 'one' }));
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout.trim()).toBe('configmap/settings serverside-applied');
    const object = await getYaml(ns, 'configmap/settings');
    expect(object['data']).toEqual({ key: 'one' });
    const [entry, ...rest] = managed(object);
    expect(rest).toEqual([]);
    expect(entry).toMatchObject({
      manager: 'kubectl',
      operation: 'Apply',
      apiVersion: 'v1',
      fieldsType: 'FieldsV1',
      fieldsV1: { 'f:data': { 'f:key': {} } },
    });
    expect(entry?.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
  });

  it('--dry-run=server answers as an apply would and creates nothing', async () => {
    const ns = await e2e.api.namespace('ssa-dry-run');
    const { code, stdout } = await apply(
      ns,
      'cm.yaml',
      configMapYaml({ key: 'one' }),
      '--dry-run=server',
    );
    expect(code).toBe(0);
    expect(stdout.trim()).toBe('configmap/settings serverside-applied (server dry run)');
    expect((await e2e.api.get(`/api/v1/namespaces/${ns}/configmaps/settings`)).status).toBe(404);
  });

  it('applying the same manifest again changes nothing, not even the resourceVersion', async () => {
    const ns = await e2e.api.namespace('ssa-noop');
    await apply(ns, 'cm.yaml', configMapYaml({ key: 'one' }));
    const before = await getYaml(ns, 'configmap/settings');
    const again = await apply(ns, 'cm.yaml', configMapYaml({ key: 'one' }));
    expect(again.code).toBe(0);
    const after = await getYaml(ns, 'configmap/settings');
    expect(after.metadata.resourceVersion).toBe(before.metadata.resourceVersion);
    expect(after.metadata.managedFields).toEqual(before.metadata.managedFields);
  });

  it('an applied change updates the object; a key dropped from the manifest is removed', async () => {
    const ns = await e2e.api.namespace('ssa-update');
    await apply(ns, 'cm.yaml', configMapYaml({ a: '1', b: '2' }));
    const before = await getYaml(ns, 'configmap/settings');
    const changed = await apply(ns, 'cm.yaml', configMapYaml({ a: '10' }));
    expect(changed.stderr).toBe('');
    const after = await getYaml(ns, 'configmap/settings');
    expect(after['data']).toEqual({ a: '10' });
    expect(after.metadata.resourceVersion).not.toBe(before.metadata.resourceVersion);
    expect(managed(after).map((e) => e.fieldsV1)).toEqual([{ 'f:data': { 'f:a': {} } }]);
  });

  it('a field another manager applied is a conflict; --force-conflicts takes it over', async () => {
    const ns = await e2e.api.namespace('ssa-conflict');
    await apply(ns, 'cm.yaml', configMapYaml({ key: 'one' }));
    const refused = await apply(
      ns,
      'other.yaml',
      configMapYaml({ key: 'two' }),
      '--field-manager=other',
    );
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain(
      'Apply failed with 1 conflict: conflict with "kubectl": .data.key',
    );
    expect((await getYaml(ns, 'configmap/settings'))['data']).toEqual({ key: 'one' });

    const forced = await apply(
      ns,
      'other.yaml',
      configMapYaml({ key: 'two' }),
      '--field-manager=other',
      '--force-conflicts',
    );
    expect(forced.stderr).toBe('');
    const object = await getYaml(ns, 'configmap/settings');
    expect(object['data']).toEqual({ key: 'two' });
    // kubectl lost the field, and with it its entry.
    expect(managed(object).map((e) => [e.manager, e.operation])).toEqual([['other', 'Apply']]);
  });

  it('a field set by kubectl create conflicts as owned by "kubectl-create" using v1', async () => {
    const ns = await e2e.api.namespace('ssa-update-owner');
    const created = await e2e.kubectl.run([
      'create',
      'configmap',
      'settings',
      '--from-literal=key=one',
      '-n',
      ns,
    ]);
    expect(created.code).toBe(0);
    const object = await getYaml(ns, 'configmap/settings');
    expect(managed(object)).toMatchObject([
      {
        manager: 'kubectl-create',
        operation: 'Update',
        apiVersion: 'v1',
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:data': { '.': {}, 'f:key': {} } },
      },
    ]);
    const refused = await apply(ns, 'cm.yaml', configMapYaml({ key: 'two' }));
    expect(refused.stderr).toContain(
      'Apply failed with 1 conflict: conflict with "kubectl-create" using v1: .data.key',
    );
  });

  it('takes over from a client-side apply without conflicts and keeps last-applied current', async () => {
    const ns = await e2e.api.namespace('ssa-upgrade');
    e2e.kubectl.write('csa.yaml', configMapYaml({ key: 'one', other: 'x' }));
    const csa = await e2e.kubectl.run(['apply', '-f', 'csa.yaml', '-n', ns]);
    expect(csa.stderr).toBe('');
    const before = await getYaml(ns, 'configmap/settings');
    expect(managed(before).map((e) => [e.manager, e.operation])).toEqual([
      ['kubectl-client-side-apply', 'Update'],
    ]);

    const upgraded = await apply(ns, 'cm.yaml', configMapYaml({ key: 'two', other: 'x' }));
    expect(upgraded.stderr).toBe('');
    expect(upgraded.code).toBe(0);
    const after = await getYaml(ns, 'configmap/settings');
    expect(after['data']).toEqual({ key: 'two', other: 'x' });
    const lastApplied = JSON.parse(
      after.metadata.annotations?.['kubectl.kubernetes.io/last-applied-configuration'] ?? '{}',
    ) as KubeObject;
    expect(lastApplied['data']).toEqual({ key: 'two', other: 'x' });
    // kubectl 1.32 moves the client-side entry over to its own (client-go csaupgrade), and the
    // annotation to "kubectl-last-applied".
    expect(managed(after).map((e) => [e.manager, e.operation, e.fieldsV1])).toEqual([
      [
        'kubectl-last-applied',
        'Apply',
        {
          'f:metadata': {
            'f:annotations': { 'f:kubectl.kubernetes.io/last-applied-configuration': {} },
          },
        },
      ],
      ['kubectl', 'Apply', { 'f:data': { 'f:key': {}, 'f:other': {} } }],
    ]);
  });

  it('a Deployment records containers by name and ports by containerPort and protocol', async () => {
    const ns = await e2e.api.namespace('ssa-deploy');
    const manifest = yamlManifest(
      webDeployment({
        labels: { app: 'web' },
        replicas: 2,
        container: { ports: [{ containerPort: 80 }] },
      }),
    );
    const { code, stderr } = await apply(ns, 'deploy.yaml', manifest);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const object = await getYaml(ns, 'deployment/web');
    const [entry] = managed(object);
    expect(entry?.fieldsV1).toEqual({
      'f:metadata': { 'f:labels': { 'f:app': {} } },
      'f:spec': {
        'f:replicas': {},
        'f:selector': {},
        'f:template': {
          'f:metadata': { 'f:labels': { 'f:app': {} } },
          'f:spec': {
            'f:containers': {
              'k:{"name":"web"}': {
                '.': {},
                'f:image': {},
                'f:name': {},
                'f:ports': {
                  'k:{"containerPort":80,"protocol":"TCP"}': { '.': {}, 'f:containerPort': {} },
                },
              },
            },
          },
        },
      },
    });
  });
});

describe('kubectl apply --server-side creates through the create path of POST (rest/create.go)', () => {
  it('a NodePort Service gets its clusterIP and nodePorts allocated by the strategy', async () => {
    const ns = await e2e.api.namespace('ssa-svc');
    const manifest = `apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  type: NodePort
  selector: {app: web}
  ports:
  - port: 80
    targetPort: 8080
`;
    const applied = await apply(ns, 'svc.yaml', manifest);
    expect(applied.stderr).toBe('');
    expect(applied.stdout.trim()).toBe('service/web serverside-applied');
    const service = await getYaml(ns, 'service/web');
    const spec = service['spec'] as {
      clusterIP?: string;
      clusterIPs?: string[];
      ports: { nodePort?: number }[];
    };
    expect(spec.clusterIP).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    expect(spec.clusterIPs).toEqual([spec.clusterIP]);
    expect(spec.ports[0]?.nodePort).toBeGreaterThanOrEqual(30000);
    expect(spec.ports[0]?.nodePort).toBeLessThanOrEqual(32767);
    // Applying again keeps what was allocated and changes nothing.
    const again = await apply(ns, 'svc.yaml', manifest);
    expect(again.stderr).toBe('');
    const after = await getYaml(ns, 'service/web');
    expect(after.metadata.resourceVersion).toBe(service.metadata.resourceVersion);
  });

  it('an events.k8s.io/v1 Event is converted to its storage version, core/v1, as a POST is', async () => {
    const ns = await e2e.api.namespace('ssa-event');
    const applied = await apply(
      ns,
      'event.yaml',
      `apiVersion: events.k8s.io/v1
kind: Event
metadata:
  name: e1
eventTime: "2026-01-02T03:04:05.000000Z"
reportingController: example.com/ctrl
reportingInstance: ctrl-1
action: Sync
reason: Synced
type: Normal
note: applied server-side
regarding: {kind: Pod, name: p1, namespace: ${ns}, apiVersion: v1}
`,
    );
    expect(applied.stderr).toBe('');
    const core = await e2e.api.get(`/api/v1/namespaces/${ns}/events/e1`);
    expect(core.status).toBe(200);
    expect(core.body).toMatchObject({
      apiVersion: 'v1',
      kind: 'Event',
      message: 'applied server-side',
      involvedObject: { kind: 'Pod', name: 'p1' },
    });
    const served = await e2e.api.get(`/apis/events.k8s.io/v1/namespaces/${ns}/events/e1`);
    expect(served.body).toMatchObject({
      apiVersion: 'events.k8s.io/v1',
      note: 'applied server-side',
    });
  });
});

describe('the Python client (kubernetes 22)', () => {
  it("applies with the dynamic client's server_side_apply and reads managed_fields back as V1ManagedFieldsEntry", async () => {
    const ns = await e2e.api.namespace('ssa-python');
    // Its REST layer sends an apply body only as a string (kubernetes-client/python rest.py).
    const script = `
import json, sys
from kubernetes import client
from kubernetes.dynamic import DynamicClient
c = client.Configuration(); c.host = sys.argv[1]
core = client.CoreV1Api(client.ApiClient(c))
body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "py"}, "data": {"k": "v"}}
dyn = DynamicClient(client.ApiClient(c))
dyn.resources.get(api_version="v1", kind="ConfigMap").server_side_apply(body=json.dumps(body), name="py", namespace=sys.argv[2], field_manager="python-app")
read = core.read_namespaced_config_map("py", sys.argv[2])
entry = read.metadata.managed_fields[0]
print(entry.manager, entry.operation, entry.api_version, entry.fields_type, entry.fields_v1)
`;
    const out = await new Promise<string>((resolve, reject) =>
      execFile(PYTHON, ['-c', script, e2e.server.url, ns], (err, stdout, stderr) =>
        err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout),
      ),
    );
    expect(out.trim()).toBe("python-app Apply v1 FieldsV1 {'f:data': {'f:k': {}}}");
  });
});

describe('apply patches over HTTP', () => {
  const path = (ns: string) => `/api/v1/namespaces/${ns}/configmaps/settings`;
  const body = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'settings' },
    data: { k: 'v' },
  };

  it('an apply without fieldManager is 422, as PatchOptions validation words it', async () => {
    const ns = await e2e.api.namespace('ssa-http');
    const res = await e2e.api.patch<Status>(path(ns), body, 'application/apply-patch+yaml');
    expect(res.status).toBe(422);
    expect(res.body.message).toBe(
      'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch',
    );
  });

  it('a dry-run apply answers the object it would create and writes nothing', async () => {
    const ns = await e2e.api.namespace('ssa-dry');
    const res = await e2e.api.patch(
      `${path(ns)}?fieldManager=test&dryRun=All`,
      body,
      'application/apply-patch+yaml',
    );
    expect(res.status).toBe(201);
    expect(res.body['data']).toEqual({ k: 'v' });
    expect((await e2e.api.get(path(ns))).status).toBe(404);
  });

  it('a conflict is a 409 Status with one FieldManagerConflict cause per field', async () => {
    const ns = await e2e.api.namespace('ssa-409');
    const first = await e2e.api.patch(
      `${path(ns)}?fieldManager=one`,
      { ...body, data: { a: '1', b: '2' } },
      'application/apply-patch+yaml',
    );
    expect(first.status).toBe(201);
    const res = await e2e.api.patch<Status>(
      `${path(ns)}?fieldManager=two`,
      { ...body, data: { a: 'x', b: 'y' } },
      'application/apply-patch+yaml',
    );
    expect(res.status).toBe(409);
    expect(res.body.reason).toBe('Conflict');
    expect(res.body.message).toBe(
      'Apply failed with 2 conflicts: conflicts with "one":\n- .data.a\n- .data.b',
    );
    expect(res.body.details?.causes).toEqual([
      { reason: 'FieldManagerConflict', message: 'conflict with "one"', field: '.data.a' },
      { reason: 'FieldManagerConflict', message: 'conflict with "one"', field: '.data.b' },
    ]);
  });

  it('an update with an empty managedFields list resets them', async () => {
    const ns = await e2e.api.namespace('ssa-reset');
    await e2e.api.patch(`${path(ns)}?fieldManager=one`, body, 'application/apply-patch+yaml');
    const reset = await e2e.api.patch(path(ns), { metadata: { managedFields: [] } });
    expect(reset.status).toBe(200);
    expect(reset.body.metadata.managedFields).toBeUndefined();
  });
});
