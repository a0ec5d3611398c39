import type { KubeObject, Status } from '@listwatch/api';
import { describe, expect, it } from 'vitest';
import { serverForFile } from '../testing/test-server.js';

// What a write kube-apiserver refuses, refused here with kube's code, field path and words:
// type errors while decoding (400 for a body: endpoints/handlers/rest.go transformDecodeError;
// 422 on `patch` for a patch result: handlers/patch.go), semantic rules as 422 Invalid
// (pkg/apis/core/validation/validation.go, pkg/apis/apps/validation/validation.go), immutable
// fields on update, the Service's allocations, and dryRun on every verb.

const env = serverForFile('validation');

const deployment = (name: string, spec: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name },
  spec: {
    selector: { matchLabels: { app: name } },
    template: {
      metadata: { labels: { app: name } },
      spec: { containers: [{ name: 'web', image: 'nginx' }] },
    },
    ...spec,
  },
});

const pod = (name: string, spec: Record<string, unknown>): KubeObject => ({
  metadata: { name },
  spec,
});

const message = (body: unknown) => (body as Status).message;

describe('type errors', () => {
  it('replicas: "three" in a body is 400 with Go\'s UnmarshalTypeError, in a patch 422 on patch', async () => {
    const ns = await env.namespace();
    const base = `/apis/apps/v1/namespaces/${ns}/deployments`;
    const res = await env.api.post(base, deployment('web', { replicas: 'three' }));
    expect(res.status).toBe(400);
    expect(message(res.body)).toBe(
      'Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32',
    );
    expect((await env.api.post(base, deployment('web'))).status).toBe(201);
    const patched = await env.api.patch(`${base}/web`, { spec: { replicas: 'three' } });
    expect(patched.status).toBe(422);
    expect(message(patched.body)).toContain(
      'json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32',
    );
    const stored = await env.api.get(`${base}/web`);
    expect((stored.body['spec'] as { replicas: number }).replicas).toBe(1);
  });

  it.each([
    [
      'numeric ConfigMap data',
      'configmaps',
      { metadata: { name: 'c' }, data: { n: 5 } },
      'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal number into Go struct field ConfigMap.data of type string',
    ],
    [
      'a boolean env name',
      'pods',
      pod('p', { containers: [{ name: 'c', image: 'i', env: [{ name: true }] }] }),
      'Pod in version "v1" cannot be handled as a Pod: json: cannot unmarshal bool into Go struct field EnvVar.spec.containers.env.name of type string',
    ],
    [
      'a quantity that does not parse',
      'pods',
      pod('p', { containers: [{ name: 'c', image: 'i', resources: { limits: { cpu: 'lots' } } }] }),
      'Pod in version "v1" cannot be handled as a Pod: quantities must match the regular expression \'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$\'',
    ],
    [
      'a boolean targetPort',
      'services',
      { metadata: { name: 's' }, spec: { ports: [{ port: 80, targetPort: true }] } },
      'Service in version "v1" cannot be handled as a Service: json: cannot unmarshal bool into Go struct field ServicePort.spec.ports.targetPort of type int32',
    ],
  ])("%s is 400 BadRequest in Go's words", async (_, plural, body, expected) => {
    const ns = await env.namespace();
    const res = await env.api.post(`/api/v1/namespaces/${ns}/${plural}`, body);
    expect(res.status).toBe(400);
    expect(message(res.body)).toBe(expected);
  });

  it('metadata times are RFC 3339, stored in UTC without fractions as Go writes them', async () => {
    const ns = await env.namespace();
    const base = `/api/v1/namespaces/${ns}/events`;
    const bad = await env.api.post(base, {
      metadata: { name: 'e' },
      involvedObject: { kind: 'Pod', name: 'p' },
      firstTimestamp: 'yesterday',
    });
    expect(bad.status).toBe(400);
    expect(message(bad.body)).toContain(
      'parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"',
    );
    const good = await env.api.post(base, {
      metadata: { name: 'e' },
      involvedObject: { kind: 'Pod', name: 'p', namespace: ns },
      firstTimestamp: '2024-05-01T12:00:00.123+02:00',
    });
    expect(good.status).toBe(201);
    expect(good.body['firstTimestamp']).toBe('2024-05-01T10:00:00Z');
  });
});

describe('semantic validation: 422 Invalid with field paths', () => {
  it.each([
    [
      'a Deployment whose selector does not match its template',
      'deployments',
      deployment('web', { selector: { matchLabels: { app: 'other' } } }),
      'Deployment.apps "web" is invalid: spec.template.metadata.labels: Invalid value: map[string]string{"app":"web"}: `selector` does not match template `labels`',
    ],
    [
      'a Deployment without a selector',
      'deployments',
      deployment('web', { selector: undefined }),
      // LabelSelectorAsSelector(nil) selects nothing, so the template does not match it either.
      'Deployment.apps "web" is invalid: [spec.selector: Required value, spec.template.metadata.labels: Invalid value: map[string]string{"app":"web"}: `selector` does not match template `labels`]',
    ],
    [
      'an empty selector',
      'deployments',
      deployment('web', { selector: {} }),
      'Deployment.apps "web" is invalid: spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: empty selector is invalid for deployment',
    ],
    [
      'a maxUnavailable that is no percentage',
      'deployments',
      deployment('web', { strategy: { rollingUpdate: { maxUnavailable: '25' } } }),
      "Deployment.apps \"web\" is invalid: spec.strategy.rollingUpdate.maxUnavailable: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:\"25\"}: a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')",
    ],
    [
      'maxSurge and maxUnavailable both 0',
      'deployments',
      deployment('web', { strategy: { rollingUpdate: { maxUnavailable: 0, maxSurge: '0%' } } }),
      'Deployment.apps "web" is invalid: spec.strategy.rollingUpdate.maxUnavailable: Invalid value: intstr.IntOrString{Type:0, IntVal:0, StrVal:""}: may not be 0 when `maxSurge` is 0',
    ],
    [
      'negative replicas',
      'replicasets',
      { ...deployment('web', { replicas: -1 }), kind: 'ReplicaSet' },
      'ReplicaSet.apps "web" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0',
    ],
  ])('%s', async (_, plural, body, expected) => {
    const ns = await env.namespace();
    const res = await env.api.post(`/apis/apps/v1/namespaces/${ns}/${plural}`, body);
    expect(res.status).toBe(422);
    expect(message(res.body)).toBe(expected);
  });

  it.each([
    ['a pod with no containers', pod('p', {}), 'spec.containers: Required value'],
    [
      'duplicate container names',
      pod('p', {
        containers: [
          { name: 'a', image: 'i' },
          { name: 'a', image: 'i' },
        ],
      }),
      'spec.containers[1].name: Duplicate value: "a"',
    ],
    [
      'a container name that is no DNS-1123 label',
      pod('p', { containers: [{ name: 'Web_1', image: 'i' }] }),
      "spec.containers[0].name: Invalid value: \"Web_1\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
    ],
    [
      'no image',
      pod('p', { containers: [{ name: 'a' }] }),
      'spec.containers[0].image: Required value',
    ],
    [
      'a port out of range',
      pod('p', { containers: [{ name: 'a', image: 'i', ports: [{ containerPort: 70000 }] }] }),
      'spec.containers[0].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive',
    ],
    [
      'a port name that is no IANA_SVC_NAME',
      pod('p', {
        containers: [{ name: 'a', image: 'i', ports: [{ containerPort: 80, name: 'http--x' }] }],
      }),
      'spec.containers[0].ports[0].name: Invalid value: "http--x": must not contain consecutive hyphens',
    ],
    [
      'an env name with =',
      pod('p', { containers: [{ name: 'a', image: 'i', env: [{ name: 'A=B' }] }] }),
      'spec.containers[0].env[0].name: Invalid value: "A=B": a valid environment variable name must consist only of printable ASCII characters other than \'=\'',
    ],
    [
      'a probe whose httpGet has no port (validateHTTPGetAction)',
      pod('p', { containers: [{ name: 'a', image: 'i', livenessProbe: { httpGet: {} } }] }),
      'spec.containers[0].livenessProbe.httpGet.port: Invalid value: 0: must be between 1 and 65535, inclusive',
    ],
    [
      'a probe without a handler (validateHandler)',
      pod('p', { containers: [{ name: 'a', image: 'i', readinessProbe: { periodSeconds: 5 } }] }),
      'spec.containers[0].readinessProbe: Required value: must specify a handler type',
    ],
    [
      'a preStop hook with a tcpSocket port that is no IANA_SVC_NAME',
      pod('p', {
        containers: [
          { name: 'a', image: 'i', lifecycle: { preStop: { tcpSocket: { port: 'Web' } } } },
        ],
      }),
      'spec.containers[0].lifecycle.preStop.tcpSocket.port: Invalid value: "Web": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)',
    ],
    [
      'an unknown restartPolicy',
      pod('p', { containers: [{ name: 'a', image: 'i' }], restartPolicy: 'Sometimes' }),
      'spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"',
    ],
  ])('%s', async (_, body, expected) => {
    const ns = await env.namespace();
    const res = await env.api.post(`/api/v1/namespaces/${ns}/pods`, body);
    expect(res.status).toBe(422);
    expect(message(res.body)).toBe(`Pod "p" is invalid: ${expected}`);
    const cause = (res.body as unknown as Status).details?.causes?.[0];
    expect(`${cause?.field}: ${cause?.message}`).toBe(expected);
  });

  it('a Service needs ports, each in range; a ConfigMap key must be a config key', async () => {
    const ns = await env.namespace();
    const noPorts = await env.api.post(`/api/v1/namespaces/${ns}/services`, {
      metadata: { name: 's' },
      spec: {},
    });
    expect(noPorts.status).toBe(422);
    expect(message(noPorts.body)).toBe('Service "s" is invalid: spec.ports: Required value');
    const badPort = await env.api.post(`/api/v1/namespaces/${ns}/services`, {
      metadata: { name: 's' },
      spec: { ports: [{ port: 0 }] },
    });
    expect(message(badPort.body)).toContain(
      'spec.ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive',
    );
    const key = await env.api.post(`/api/v1/namespaces/${ns}/configmaps`, {
      metadata: { name: 'c' },
      data: { 'a b': 'x' },
    });
    expect(key.status).toBe(422);
    expect(message(key.body)).toContain('data[a b]: Invalid value: "a b": a valid config key');
  });
});

describe('immutable fields on update', () => {
  it("a Deployment's spec.selector", async () => {
    const ns = await env.namespace();
    const base = `/apis/apps/v1/namespaces/${ns}/deployments`;
    await env.api.post(base, deployment('web'));
    const res = await env.api.patch(`${base}/web`, {
      spec: {
        selector: { matchLabels: { app: 'web', tier: 'x' } },
        template: { metadata: { labels: { app: 'web', tier: 'x' } } },
      },
    });
    expect(res.status).toBe(422);
    expect(message(res.body)).toBe(
      'Deployment.apps "web" is invalid: spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"app":"web", "tier":"x"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable',
    );
  });

  it("a pod's spec, except the image and the fields ValidatePodUpdate allows", async () => {
    const ns = await env.namespace();
    const base = `/api/v1/namespaces/${ns}/pods`;
    await env.api.post(base, pod('p', { containers: [{ name: 'a', image: 'nginx:1' }] }));
    const image = await env.api.patch(
      `${base}/p`,
      { spec: { containers: [{ name: 'a', image: 'nginx:2' }] } },
      'application/strategic-merge-patch+json',
    );
    expect(image.status).toBe(200);
    const other = await env.api.patch(`${base}/p`, { spec: { restartPolicy: 'Never' } });
    expect(other.status).toBe(422);
    expect(message(other.body)).toMatch(
      /^Pod "p" is invalid: spec: Forbidden: pod updates may not change fields other than `spec.containers\[\*\].image`/,
    );
    const labels = await env.api.patch(`${base}/p`, { metadata: { labels: { a: 'b' } } });
    expect(labels.status).toBe(200);
  });

  it("an immutable ConfigMap's data and a Secret's type", async () => {
    const ns = await env.namespace();
    const base = `/api/v1/namespaces/${ns}/configmaps`;
    await env.api.post(base, { metadata: { name: 'c' }, data: { a: 'b' }, immutable: true });
    const res = await env.api.patch(`${base}/c`, { data: { a: 'c' } });
    expect(res.status).toBe(422);
    expect(message(res.body)).toBe(
      'ConfigMap "c" is invalid: data: Forbidden: field is immutable when `immutable` is set',
    );
    const secrets = `/api/v1/namespaces/${ns}/secrets`;
    await env.api.post(secrets, { metadata: { name: 's' } });
    const type = await env.api.patch(`${secrets}/s`, { type: 'kubernetes.io/tls' });
    expect(type.status).toBe(422);
    expect(message(type.body)).toBe(
      'Secret "s" is invalid: type: Invalid value: "kubernetes.io/tls": field is immutable',
    );
  });
});

describe('Service allocations', () => {
  it('each service gets its own cluster IP in 10.96.0.0/12, kept by updates that leave it out, immutable after', async () => {
    const ns = await env.namespace();
    const base = `/api/v1/namespaces/${ns}/services`;
    const ips = new Set<string>();
    for (let i = 0; i < 20; i++) {
      const res = await env.api.post(base, {
        metadata: { name: `s${i}` },
        spec: { ports: [{ port: 80 }] },
      });
      expect(res.status).toBe(201);
      const spec = res.body['spec'] as Record<string, unknown>;
      const ip = spec['clusterIP'] as string;
      expect(ip).toMatch(/^10\.(9[6-9]|10[0-9]|11[01])\.\d+\.\d+$/);
      expect(spec).toMatchObject({
        clusterIPs: [ip],
        ipFamilies: ['IPv4'],
        ipFamilyPolicy: 'SingleStack',
      });
      ips.add(ip);
    }
    expect(ips.size).toBe(20);
    const [first] = [...ips];
    const taken = await env.api.post(base, {
      metadata: { name: 'taken' },
      spec: { clusterIP: first, ports: [{ port: 80 }] },
    });
    expect(taken.status).toBe(422);
    expect(message(taken.body)).toBe(
      `Service "taken" is invalid: spec.clusterIPs: Invalid value: []string{"${first}"}: failed to allocate IP ${first}: provided IP is already allocated`,
    );
    const current = await env.api.get(`${base}/s0`);
    const { clusterIP, clusterIPs, ...rest } = current.body['spec'] as Record<string, unknown>;
    const replaced = await env.api.put(`${base}/s0`, { ...current.body, spec: rest });
    expect(replaced.status).toBe(200);
    expect((replaced.body['spec'] as Record<string, unknown>)['clusterIP']).toBe(clusterIP);
    const moved = await env.api.patch(`${base}/s0`, {
      spec: { clusterIP: '10.96.0.200', clusterIPs: ['10.96.0.200'] },
    });
    expect(moved.status).toBe(422);
    expect(message(moved.body)).toBe(
      'Service "s0" is invalid: spec.clusterIPs[0]: Invalid value: []string{"10.96.0.200"}: may not change once set',
    );
    expect(clusterIPs).toEqual([clusterIP]);
  });

  it('a NodePort service gets a node port in 30000-32767; a headless one no address', async () => {
    const ns = await env.namespace();
    const base = `/api/v1/namespaces/${ns}/services`;
    const res = await env.api.post(base, {
      metadata: { name: 'np' },
      spec: { type: 'NodePort', ports: [{ port: 80 }] },
    });
    const [port] = (res.body['spec'] as { ports: { nodePort: number }[] }).ports;
    expect(port?.nodePort).toBeGreaterThanOrEqual(30000);
    expect(port?.nodePort).toBeLessThanOrEqual(32767);
    const headless = await env.api.post(base, {
      metadata: { name: 'h' },
      spec: { clusterIP: 'None', selector: { app: 'x' } },
    });
    expect(headless.status).toBe(201);
    expect(headless.body['spec']).toMatchObject({ clusterIP: 'None', clusterIPs: ['None'] });
  });
});

describe('dryRun=All runs defaulting and validation and writes nothing, on every verb', () => {
  it('create, update, patch, status, delete and deletecollection', async () => {
    const ns = await env.namespace();
    const base = `/apis/apps/v1/namespaces/${ns}/deployments`;
    const created = await env.api.post(`${base}?dryRun=All`, deployment('web'));
    expect(created.status).toBe(201);
    expect((created.body['spec'] as { replicas: number }).replicas).toBe(1);
    expect((await env.api.get(`${base}/web`)).status).toBe(404);
    const invalid = await env.api.post(`${base}?dryRun=All`, deployment('web', { replicas: -1 }));
    expect(invalid.status).toBe(422);

    const stored = (await env.api.post(base, deployment('web'))).body;
    const same = async () => {
      const now = await env.api.get(`${base}/web`);
      expect(now.status).toBe(200);
      expect(now.body).toEqual(stored);
    };
    const put = await env.api.put(`${base}/web?dryRun=All`, {
      ...stored,
      spec: { ...(stored['spec'] as object), replicas: 5 },
    });
    expect(put.status).toBe(200);
    expect((put.body['spec'] as { replicas: number }).replicas).toBe(5);
    await same();
    expect((await env.api.patch(`${base}/web?dryRun=All`, { spec: { replicas: 7 } })).status).toBe(
      200,
    );
    await same();
    const status = await env.api.put(`${base}/web/status?dryRun=All`, {
      ...stored,
      status: { replicas: 3 },
    });
    expect(status.status).toBe(200);
    await same();
    expect((await env.api.delete(`${base}/web?dryRun=All`)).status).toBe(200);
    await same();
    expect((await env.api.delete(`${base}?dryRun=All`)).status).toBe(200);
    await same();
  });
});
