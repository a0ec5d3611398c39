import { describe, expect, it } from 'vitest';
import { e2eForFile } from '../e2e/e2e.test-helper.js';

// Custom resources through real kubectl: apply a CRD, wait for Established, then work with its
// objects as with built-ins (kubectl's discovery, OpenAPI v3 for explain and validation, Table
// output with printer columns, the scale subresource).

const e2e = e2eForFile();

const CRD_YAML = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: foos.example.com
spec:
  group: example.com
  scope: Namespaced
  names:
    plural: foos
    singular: foo
    kind: Foo
    listKind: FooList
    shortNames: [fo]
    categories: [all]
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        description: Foo is a sample-controller resource.
        properties:
          spec:
            type: object
            description: FooSpec is the spec for a Foo resource.
            properties:
              deploymentName:
                type: string
                description: The name of the Deployment the Foo owns.
              replicas:
                type: integer
                minimum: 0
                maximum: 10
                default: 1
          status:
            type: object
            properties:
              availableReplicas:
                type: integer
    subresources:
      status: {}
      scale:
        specReplicasPath: .spec.replicas
        statusReplicasPath: .status.availableReplicas
    additionalPrinterColumns:
    - name: Deployment
      type: string
      jsonPath: .spec.deploymentName
    - name: Replicas
      type: integer
      jsonPath: .spec.replicas
`;

const fooYaml = (name: string, replicas: number | string) => `apiVersion: example.com/v1
kind: Foo
metadata:
  name: ${name}
spec:
  deploymentName: ${name}-deployment
  replicas: ${replicas}
`;

describe('custom resources with kubectl', () => {
  it('kubectl apply of a CRD, wait Established, then apply, get, explain and scale its objects', async () => {
    const ns = await e2e.api.namespace('crd');
    const { kubectl } = e2e;
    const applied = await kubectl.run(['apply', '-f', kubectl.write('crd.yaml', CRD_YAML)]);
    expect(applied.stderr).toBe('');
    expect(applied.stdout.trim()).toBe(
      'customresourcedefinition.apiextensions.k8s.io/foos.example.com created',
    );
    const waited = await kubectl.run([
      'wait',
      '--for',
      'condition=Established',
      'crd/foos.example.com',
      '--timeout=30s',
    ]);
    expect(waited.stdout.trim()).toBe(
      'customresourcedefinition.apiextensions.k8s.io/foos.example.com condition met',
    );

    const created = await kubectl.run([
      'apply',
      '-n',
      ns,
      '-f',
      kubectl.write('foo.yaml', fooYaml('one', 3)),
    ]);
    expect(created.stderr).toBe('');
    expect(created.stdout.trim()).toBe('foo.example.com/one created');

    const got = await kubectl.run(['get', 'foos', '-n', ns]);
    expect(got.stderr).toBe('');
    const [header, row] = got.stdout.trim().split('\n');
    expect(header?.split(/\s+/)).toEqual(['NAME', 'DEPLOYMENT', 'REPLICAS']);
    expect(row?.split(/\s+/)).toEqual(['one', 'one-deployment', '3']);
    const short = await kubectl.run([
      'get',
      'fo',
      'one',
      '-n',
      ns,
      '-o',
      'jsonpath={.spec.replicas}',
    ]);
    expect(short.stdout).toBe('3');

    const all = await kubectl.run(['get', 'all', '-n', ns, '-o', 'name']);
    expect(all.stdout.split('\n')).toContain('foo.example.com/one');

    const explained = await kubectl.run(['explain', 'foo.spec']);
    expect(explained.stderr).toBe('');
    expect(explained.stdout).toContain('FooSpec is the spec for a Foo resource.');
    expect(explained.stdout).toContain('deploymentName\t<string>');

    const invalid = await kubectl.run([
      'apply',
      '-n',
      ns,
      '-f',
      kubectl.write('bad.yaml', fooYaml('two', 50)),
    ]);
    expect(invalid.code).not.toBe(0);
    expect(invalid.stderr).toContain(
      'spec.replicas: Invalid value: 50: spec.replicas in body should be less than or equal to 10',
    );

    const scaled = await kubectl.run(['scale', 'foo', 'one', '--replicas=5', '-n', ns]);
    expect(scaled.stderr).toBe('');
    expect(scaled.stdout.trim()).toBe('foo.example.com/one scaled');
    const after = await kubectl.run([
      'get',
      'foo',
      'one',
      '-n',
      ns,
      '-o',
      'jsonpath={.spec.replicas}',
    ]);
    expect(after.stdout).toBe('5');

    const deleted = await kubectl.run([
      'delete',
      'crd',
      'foos.example.com',
      '--wait=true',
      '--timeout=30s',
    ]);
    expect(deleted.stdout.trim()).toBe(
      'customresourcedefinition.apiextensions.k8s.io "foos.example.com" deleted',
    );
    const gone = await kubectl.run(['get', 'foos', '-n', ns]);
    expect(gone.code).not.toBe(0);
    // kubectl's discovery cache still names foos: the server's 404 is what it shows.
    expect(gone.stderr).toContain('the server could not find the requested resource');
  });

  it('kubectl explain crd.spec shows the CustomResourceDefinition fields of the schema source (apiextensions-apiserver generated.proto)', async () => {
    const explained = await e2e.kubectl.run(['explain', 'crd.spec']);
    expect(explained.stderr).toBe('');
    expect(explained.stdout).toMatch(/GROUP:\s+apiextensions.k8s.io/);
    expect(explained.stdout).toMatch(/KIND:\s+CustomResourceDefinition/);
    expect(explained.stdout).toContain('spec describes how the user wants the resources to appear');
    for (const field of [
      'conversion\t<CustomResourceConversion>',
      'group\t<string> -required-',
      'names\t<CustomResourceDefinitionNames> -required-',
      'preserveUnknownFields\t<boolean>',
      'scope\t<string> -required-',
      'versions\t<[]CustomResourceDefinitionVersion> -required-',
    ])
      expect(explained.stdout).toContain(field);
    const schema = await e2e.kubectl.run([
      'explain',
      'crd.spec.versions.schema.openAPIV3Schema.x-kubernetes-preserve-unknown-fields',
    ]);
    expect(schema.stderr).toBe('');
    expect(schema.stdout).toMatch(/FIELD:\s+x-kubernetes-preserve-unknown-fields <boolean>/);
  });
  it('a hand-written CRD without listKind or singular is defaulted, not refused (apiextensions v1 defaults.go SetDefaults_CustomResourceDefinitionSpec)', async () => {
    const ns = await e2e.api.namespace('crd-min');
    const { kubectl } = e2e;
    const minimal = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.minimal.example.com
spec:
  group: minimal.example.com
  scope: Namespaced
  names:
    plural: widgets
    kind: Widget
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        x-kubernetes-preserve-unknown-fields: true
`;
    const applied = await kubectl.run(['apply', '-f', kubectl.write('min-crd.yaml', minimal)]);
    expect(applied.stderr).toBe('');
    expect(applied.stdout.trim()).toBe(
      'customresourcedefinition.apiextensions.k8s.io/widgets.minimal.example.com created',
    );
    const names = await kubectl.run([
      'get',
      'crd',
      'widgets.minimal.example.com',
      '-o',
      'jsonpath={.spec.names.singular} {.spec.names.listKind} {.spec.conversion.strategy} {.status.storedVersions}',
    ]);
    expect(names.stdout).toBe('widget WidgetList None ["v1"]');
    const waited = await kubectl.run([
      'wait',
      '--for',
      'condition=Established',
      'crd/widgets.minimal.example.com',
      '--timeout=30s',
    ]);
    expect(waited.code).toBe(0);
    const accepted = await kubectl.run([
      'get',
      'crd',
      'widgets.minimal.example.com',
      '-o',
      'jsonpath={.status.acceptedNames.singular} {.status.acceptedNames.listKind}',
    ]);
    expect(accepted.stdout).toBe('widget WidgetList');
    const widget = `apiVersion: minimal.example.com/v1
kind: Widget
metadata:
  name: w1
spec:
  size: 3
`;
    const created = await kubectl.run(['apply', '-n', ns, '-f', kubectl.write('w1.yaml', widget)]);
    expect(created.stderr).toBe('');
    expect(created.stdout.trim()).toBe('widget.minimal.example.com/w1 created');
    const listed = await kubectl.run(['get', 'widget', '-n', ns, '-o', 'json']);
    expect(listed.stderr).toBe('');
    const list = JSON.parse(listed.stdout) as { items: { metadata: { name: string } }[] };
    expect(list.items.map((o) => o.metadata.name)).toEqual(['w1']);
    const raw = await e2e.api.get(`/apis/minimal.example.com/v1/namespaces/${ns}/widgets`);
    expect(raw.body.kind).toBe('WidgetList');
  });
});
