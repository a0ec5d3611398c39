import { describe, expect, it } from 'vitest';
import { e2eForFile, uniqueName } from './e2e.test-helper.js';

// Issue 22, items 1 and 2, driven through the real kubectl 1.32: manifests that leave fields to
// the server read back defaulted, so `kubectl describe` works on them, and each invalid object
// is refused as kube-apiserver refuses it — 422 Invalid with field paths for what validation
// catches, 400 BadRequest for values of the wrong type (the body does not decode).

const e2e = e2eForFile();

async function namespace(): Promise<string> {
  const name = uniqueName('defaults');
  expect((await e2e.kubectl.run(['create', 'namespace', name])).code).toBe(0);
  return name;
}

const deployment = (
  name: string,
  extra: { replicas?: string; selector?: string } = {},
) => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
spec:
${extra.replicas ? `  replicas: ${extra.replicas}\n` : ''}  selector:
    matchLabels: {app: ${extra.selector ?? name}}
  template:
    metadata:
      labels: {app: ${name}}
    spec:
      containers:
      - name: web
        image: nginx
`;

async function apply(ns: string, file: string, manifest: string) {
  e2e.kubectl.write(file, manifest);
  return e2e.kubectl.run(['apply', '-n', ns, '-f', file]);
}

describe('defaulting, as kubectl sees it', () => {
  it('kubectl describe deploy works on a manifest without replicas: 1 desired, RollingUpdate 25%/25%', async () => {
    const ns = await namespace();
    const applied = await apply(ns, 'web.yaml', deployment('web'));
    expect(applied.stderr).toBe('');
    expect(applied.stdout.trim()).toBe('deployment.apps/web created');
    const described = await e2e.kubectl.run(['describe', 'deploy', 'web', '-n', ns]);
    expect(described.stderr).toBe('');
    expect(described.code).toBe(0);
    expect(described.stdout).toMatch(
      /^Replicas:\s+1 desired \| 0 updated \| 0 total \| 0 available \| 0 unavailable$/m,
    );
    expect(described.stdout).toMatch(/^StrategyType:\s+RollingUpdate$/m);
    expect(described.stdout).toMatch(
      /^RollingUpdateStrategy:\s+25% max unavailable, 25% max surge$/m,
    );
    const pulled = await e2e.kubectl.run([
      'get',
      'deploy',
      'web',
      '-n',
      ns,
      '-o',
      'jsonpath={.spec.template.spec.containers[0].imagePullPolicy} {.spec.template.spec.restartPolicy} {.spec.template.spec.dnsPolicy} {.spec.template.spec.schedulerName} {.spec.revisionHistoryLimit} {.spec.progressDeadlineSeconds}',
    ]);
    expect(pulled.stdout).toBe('Always Always ClusterFirst default-scheduler 10 600');
  });

  it('what `kubectl create deployment` generates, created from JSON, reads back with 1 replica and template defaults', async () => {
    // `kubectl create deployment` itself sends protobuf; its object is created here as JSON.
    const ns = await namespace();
    const generated = await e2e.kubectl.run([
      'create',
      'deployment',
      'api',
      '--image=nginx:1.27',
      '-n',
      ns,
      '--dry-run=client',
      '-o',
      'json',
    ]);
    expect(generated.code).toBe(0);
    e2e.kubectl.write('api.json', generated.stdout);
    const created = await e2e.kubectl.run(['create', '-f', 'api.json', '-n', ns]);
    expect(created.stdout.trim()).toBe('deployment.apps/api created');
    const described = await e2e.kubectl.run(['describe', 'deploy', 'api', '-n', ns]);
    expect(described.code).toBe(0);
    expect(described.stdout).toMatch(/^Replicas:\s+1 desired/m);
    expect(described.stdout).toMatch(/^Selector:\s+app=api$/m);
  });

  it('a Service gets type ClusterIP and a cluster IP; a pod its policies, which describe shows', async () => {
    const ns = await namespace();
    await apply(
      ns,
      'svc.yaml',
      'apiVersion: v1\nkind: Service\nmetadata: {name: web}\nspec:\n  selector: {app: web}\n  ports: [{port: 80}]\n',
    );
    const svc = await e2e.kubectl.run(['get', 'svc', 'web', '-n', ns, '--no-headers']);
    expect(svc.stdout).toMatch(/^web\s+ClusterIP\s+10\.\d+\.\d+\.\d+\s+<none>\s+80\/TCP\s+\S+$/m);
    await apply(
      ns,
      'pod.yaml',
      'apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  containers: [{name: web, image: "nginx:1.27"}]\n',
    );
    const pod = await e2e.kubectl.run(['describe', 'pod', 'web', '-n', ns]);
    expect(pod.code).toBe(0);
    expect(pod.stdout).toMatch(/^QoS Class:\s+BestEffort$/m);
    const fields = await e2e.kubectl.run([
      'get',
      'pod',
      'web',
      '-n',
      ns,
      '-o',
      'jsonpath={.spec.containers[0].imagePullPolicy} {.spec.containers[0].terminationMessagePath} {.spec.restartPolicy} {.spec.terminationGracePeriodSeconds} {.spec.enableServiceLinks}',
    ]);
    expect(fields.stdout).toBe('IfNotPresent /dev/termination-log Always 30 true');
  });
});

describe('invalid objects, refused through kubectl apply', () => {
  it.each([
    [
      'a Deployment whose selector does not match its template',
      deployment('bad', { selector: 'other' }),
      'The Deployment "bad" is invalid: spec.template.metadata.labels: Invalid value: map[string]string{"app":"bad"}: `selector` does not match template `labels`',
    ],
    [
      'a pod with no containers',
      'apiVersion: v1\nkind: Pod\nmetadata: {name: bad}\nspec: {containers: []}\n',
      'The Pod "bad" is invalid: spec.containers: Required value',
    ],
    [
      'invalid base64 in Secret data',
      'apiVersion: v1\nkind: Secret\nmetadata: {name: bad}\ndata: {key: "not base64!"}\n',
      'The Secret "bad" is invalid: data[key]: Invalid value: "<secret contents redacted>": illegal base64 data at input byte 3',
    ],
    [
      'a pod whose container port is out of range',
      'apiVersion: v1\nkind: Pod\nmetadata: {name: bad}\nspec: {containers: [{name: web, image: nginx, ports: [{containerPort: 70000}]}]}\n',
      'The Pod "bad" is invalid: spec.containers[0].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive',
    ],
    [
      'replicas: "three"',
      deployment('bad', { replicas: 'three' }),
      'Error from server (BadRequest): error when creating "bad.yaml": Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32',
    ],
    [
      'numeric ConfigMap data',
      'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: bad}\ndata: {n: 5}\n',
      'Error from server (BadRequest): error when creating "bad.yaml": ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal number into Go struct field ConfigMap.data of type string',
    ],
    [
      'a boolean env name',
      'apiVersion: v1\nkind: Pod\nmetadata: {name: bad}\nspec: {containers: [{name: web, image: nginx, env: [{name: true}]}]}\n',
      'Error from server (BadRequest): error when creating "bad.yaml": Pod in version "v1" cannot be handled as a Pod: json: cannot unmarshal bool into Go struct field EnvVar.spec.containers.env.name of type string',
    ],
  ])('%s', async (_, manifest, expected) => {
    const ns = await namespace();
    const result = await apply(ns, 'bad.yaml', manifest);
    expect(result.code).toBe(1);
    expect(result.stderr.trim()).toBe(expected);
    const left = await e2e.kubectl.run(['get', 'all,cm,secret', '-n', ns, '-o', 'name']);
    expect(left.stdout).not.toMatch(/\/bad$/m);
  });

  it('kubectl apply of a changed selector is refused: spec.selector is immutable', async () => {
    const ns = await namespace();
    await apply(ns, 'web.yaml', deployment('web'));
    const changed = deployment('web')
      .replace('matchLabels: {app: web}', 'matchLabels: {app: web, tier: x}')
      .replace('labels: {app: web}', 'labels: {app: web, tier: x}');
    const result = await apply(ns, 'web.yaml', changed);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"app":"web", "tier":"x"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable',
    );
  });
});
