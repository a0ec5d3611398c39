import type { KubeObject } from '@listwatch/api';
import { describe, expect, it } from 'vitest';
import { curl, e2eForFile } from '../e2e/e2e.test-helper.js';

// `kubectl apply --server-side` of custom resources merged by their CRD's list types
// (apiextensions-apiserver customresource_handler.go: the TypeConverter of a version from its
// structural schema), and the scale subresource's ownership of replicas (scalehandler.go),
// with the real kubectl and curl.

const e2e = e2eForFile();

const CRD_YAML = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gadgets.ssa.example.com
spec:
  group: ssa.example.com
  scope: Namespaced
  names: {plural: gadgets, singular: gadget, kind: Gadget, listKind: GadgetList}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: integer}
              endpoints:
                type: array
                x-kubernetes-list-type: map
                x-kubernetes-list-map-keys: [name]
                items:
                  type: object
                  required: [name]
                  properties:
                    name: {type: string}
                    url: {type: string}
              command:
                type: array
                items: {type: string}
          status:
            type: object
            properties:
              size: {type: integer}
    subresources:
      status: {}
      scale: {specReplicasPath: .spec.size, statusReplicasPath: .status.size}
`;

const gadget = (spec: string) => `apiVersion: ssa.example.com/v1
kind: Gadget
metadata:
  name: g
spec:
${spec}`;

describe('kubectl apply --server-side of custom resources', () => {
  it('two field managers applying different entries of a list-type=map list keep both; an atomic list conflicts until --force-conflicts replaces it', async () => {
    const { kubectl } = e2e;
    const ns = await e2e.api.namespace('crd-ssa');
    expect((await kubectl.run(['apply', '-f', kubectl.write('crd.yaml', CRD_YAML)])).code).toBe(0);
    const waited = await kubectl.run([
      'wait',
      '--for',
      'condition=Established',
      'crd/gadgets.ssa.example.com',
      '--timeout=30s',
    ]);
    expect(waited.code).toBe(0);

    const applyAs = (manager: string, file: string, spec: string, ...extra: string[]) =>
      kubectl.run([
        'apply',
        '--server-side',
        `--field-manager=${manager}`,
        '-n',
        ns,
        '-f',
        kubectl.write(file, gadget(spec)),
        ...extra,
      ]);
    const a = await applyAs(
      'team-a',
      'a.yaml',
      '  size: 2\n  endpoints:\n  - {name: api, url: http://a}\n  command: [run, --fast]\n',
    );
    expect(a.stderr).toBe('');
    expect(a.stdout.trim()).toBe('gadget.ssa.example.com/g serverside-applied');
    const b = await applyAs(
      'team-b',
      'b.yaml',
      '  endpoints:\n  - {name: metrics, url: http://b}\n',
    );
    expect(b.stderr).toBe('');

    const got = await kubectl.run(['get', 'gadget', 'g', '-n', ns, '-o', 'json']);
    const object = JSON.parse(got.stdout) as KubeObject;
    expect(object['spec']).toEqual({
      size: 2,
      endpoints: [
        { name: 'api', url: 'http://a' },
        { name: 'metrics', url: 'http://b' },
      ],
      command: ['run', '--fast'],
    });
    const shown = await kubectl.run([
      'get',
      'gadget',
      'g',
      '-n',
      ns,
      '-o',
      'yaml',
      '--show-managed-fields',
    ]);
    expect(shown.stdout).toContain('k:{"name":"metrics"}:');
    expect(shown.stdout).toContain('manager: team-b');

    const conflict = await applyAs('team-b', 'c.yaml', '  command: [stop]\n');
    expect(conflict.code).not.toBe(0);
    expect(conflict.stderr).toContain(
      'Apply failed with 1 conflict: conflict with "team-a": .spec.command',
    );
    const forced = await applyAs('team-b', 'c.yaml', '  command: [stop]\n', '--force-conflicts');
    expect(forced.stderr).toBe('');
    const after = await kubectl.run([
      'get',
      'gadget',
      'g',
      '-n',
      ns,
      '-o',
      'jsonpath={.spec.command}',
    ]);
    expect(after.stdout).toBe('["stop"]');

    // kubectl scale is a merge patch of the Scale: its manager now owns .spec.size.
    const scaled = await kubectl.run(['scale', 'gadget', 'g', '--replicas=4', '-n', ns]);
    expect(scaled.stderr).toBe('');
    const owned = await kubectl.run([
      'get',
      'gadget',
      'g',
      '-n',
      ns,
      '-o',
      'jsonpath={range .metadata.managedFields[?(@.subresource=="scale")]}{.manager} {.operation} {.fieldsV1}{end}',
    ]);
    expect(owned.stdout).toBe('kubectl Update {"f:spec":{"f:size":{}}}');
    const resized = await applyAs(
      'team-a',
      'd.yaml',
      '  size: 3\n  endpoints:\n  - {name: api, url: http://a}\n  command: [run, --fast]\n',
    );
    // Both the Scale's writer and the forced team-b now stand in team-a's way.
    expect(resized.stderr).toContain(
      [
        'Apply failed with 2 conflicts: conflicts with "kubectl" with subresource "scale" using ssa.example.com/v1:',
        '- .spec.size',
        'conflicts with "team-b":',
        '- .spec.command',
      ].join('\n'),
    );
  });

  it('PATCH application/apply-patch+yaml of a Scale on deployments/{name}/scale (curl) owns spec.replicas as an Apply with subresource scale', async () => {
    const ns = await e2e.api.namespace('scale-ssa');
    const { kubectl } = e2e;
    const deployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: web, image: nginx}]
`;
    const created = await kubectl.run([
      'apply',
      '--server-side',
      '-n',
      ns,
      '-f',
      kubectl.write('web.yaml', deployment),
    ]);
    expect(created.stderr).toBe('');
    const scale = await curl([
      '-X',
      'PATCH',
      '-H',
      'Content-Type: application/apply-patch+yaml',
      '--data-binary',
      'apiVersion: autoscaling/v1\nkind: Scale\nmetadata: {name: web}\nspec: {replicas: 7}\n',
      '-w',
      '\n%{http_code}',
      `${e2e.server.url}/apis/apps/v1/namespaces/${ns}/deployments/web/scale?fieldManager=hpa&force=true`,
    ]);
    const code = scale.stdout.slice(scale.stdout.lastIndexOf('\n') + 1);
    const body = scale.stdout.slice(0, scale.stdout.lastIndexOf('\n'));
    expect(code).toBe('200');
    expect(JSON.parse(body)).toMatchObject({ kind: 'Scale', spec: { replicas: 7 } });
    const owner = await kubectl.run([
      'get',
      'deploy',
      'web',
      '-n',
      ns,
      '-o',
      'jsonpath={range .metadata.managedFields[?(@.subresource=="scale")]}{.manager} {.operation} {.apiVersion} {.fieldsV1}{end}',
    ]);
    expect(owner.stdout).toBe('hpa Apply apps/v1 {"f:spec":{"f:replicas":{}}}');
    // kubectl apply --subresource=scale sends the manifest's own kind to /scale, which the
    // Scale's field manager refuses as kube-apiserver does.
    const subresource = await kubectl.run([
      'apply',
      '--server-side',
      '--subresource=scale',
      '-n',
      ns,
      '-f',
      kubectl.write('web.yaml', deployment),
    ]);
    expect(subresource.code).not.toBe(0);
    expect(subresource.stderr).toContain('invalid object type: apps/v1, Kind=Deployment');
  });
});
