import { builtinResources, jsonFields, type ResourceDefinition } from '@listwatch/api';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ApiGroupIndex } from './api-groups.js';
import { resourceDefinitions } from './definitions.test-helper.js';
import { openApiV2Document } from './openapi-v2.js';
import { openApiV3Document } from './openapi-v3.js';
import { schemaNameOf, type Schema } from './openapi-schemas.js';

interface Gvk {
  group: string;
  version: string;
  kind: string;
}

interface Operation {
  operationId: string;
  parameters?: { name: string; in: string }[];
  requestBody?: { content: Record<string, unknown> };
  consumes?: string[];
  'x-kubernetes-group-version-kind': Gvk;
}

type Method = 'get' | 'put' | 'post' | 'delete' | 'patch';
type PathItem = Partial<Record<Method, Operation>> & { parameters?: unknown[] };

interface V3Doc {
  paths: Record<string, PathItem>;
  components: { schemas: Record<string, Schema> };
}

interface V2Doc {
  swagger: string;
  paths: Record<string, PathItem>;
  definitions: Record<string, Schema>;
}

function v3Documents(definitions: readonly ResourceDefinition[]): V3Doc[] {
  return new ApiGroupIndex(definitions)
    .allGroupVersions()
    .map((gv) => openApiV3Document(gv) as unknown as V3Doc);
}

function v2Document(definitions: readonly ResourceDefinition[]): V2Doc {
  return openApiV2Document(new ApiGroupIndex(definitions).allGroupVersions()) as unknown as V2Doc;
}

function refs(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) for (const v of value) refs(v, out);
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (k === '$ref' && typeof v === 'string') out.push(v);
      else refs(v, out);
    }
  }
  return out;
}

const METHODS: readonly Method[] = ['get', 'put', 'post', 'delete', 'patch'];

function operations(doc: {
  paths: Record<string, PathItem>;
}): { path: string; method: Method; op: Operation }[] {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    METHODS.flatMap((method) => {
      const op = item[method];
      return op ? [{ path, method, op }] : [];
    }),
  );
}

const sameGvk = (a: Gvk | undefined, def: Gvk) =>
  a?.group === def.group && a.version === def.version && a.kind === def.kind;

function schemaOf(doc: V3Doc, ref: string): Schema {
  const schema = doc.components.schemas[ref.replace('#/components/schemas/', '')];
  if (!schema) throw new Error(`unable to resolve ${ref}`);
  return schema;
}

/** Follows allOf[0] and $ref as kubectl's PatchMetaFromOpenAPIV3 does. */
function resolve(doc: V3Doc, schema: Schema): Schema {
  let s = schema;
  for (;;) {
    const allOf = s['allOf'] as Schema[] | undefined;
    if (allOf?.[0]) s = allOf[0];
    const ref = s['$ref'];
    if (typeof ref !== 'string') return s;
    s = schemaOf(doc, ref);
  }
}

function properties(schema: Schema): Record<string, Schema> {
  return (schema['properties'] as Record<string, Schema> | undefined) ?? {};
}

/** The schema at a property path (`spec.template.spec.containers`), as kubectl walks it. */
function at(doc: V3Doc, kindSchema: Schema, path: string): Schema {
  const keys = path.split('.');
  let s = resolve(doc, kindSchema);
  keys.forEach((key, i) => {
    const prop = properties(s)[key];
    if (!prop) throw new Error(`unable to find api field "${key}"`);
    // The last field is returned as declared: its patch extensions sit beside the reference.
    s = i === keys.length - 1 ? prop : resolve(doc, prop);
  });
  return s;
}

function docWithPath(docs: V3Doc[], path: string): V3Doc {
  const doc = docs.find((d) => d.paths[path]);
  if (!doc) throw new Error(`no document serves ${path}`);
  return doc;
}

const all = fc
  .constant(builtinResources)
  .chain((builtins) => resourceDefinitions.map((extra) => [...builtins, ...extra]));

describe('OpenAPI v3 documents', () => {
  it('stand alone: every $ref resolves inside the document', () => {
    fc.assert(
      fc.property(all, (definitions) => {
        for (const doc of v3Documents(definitions)) {
          for (const ref of refs(doc)) expect(() => schemaOf(doc, ref)).not.toThrow();
        }
      }),
      { numRuns: 30 },
    );
  });

  it('declare fieldValidation on every PATCH and POST of a kind, so kubectl leaves validation to the server (query_param_verifier_v3.go)', () => {
    fc.assert(
      fc.property(all, (definitions) => {
        const docs = v3Documents(definitions);
        for (const { method, op } of docs.flatMap(operations)) {
          if (method !== 'patch' && method !== 'post' && method !== 'put') continue;
          expect(op.parameters?.some((p) => p.name === 'fieldValidation' && p.in === 'query')).toBe(
            true,
          );
        }
        const served = new ApiGroupIndex(definitions)
          .allGroupVersions()
          .flatMap((gv) => gv.resources);
        for (const def of served.filter((d) => d.verbs.includes('patch'))) {
          const patches = docs
            .flatMap(operations)
            .filter(
              (o) => o.method === 'patch' && sameGvk(o.op['x-kubernetes-group-version-kind'], def),
            );
          expect(patches.length, `${def.plural}.${def.group}`).toBeGreaterThan(0);
          // kubectl apply only computes a strategic merge patch from v3 if the PATCH takes one.
          for (const p of patches) {
            expect(Object.keys(p.op.requestBody?.content ?? {})).toContain(
              'application/strategic-merge-patch+json',
            );
          }
        }
      }),
      { numRuns: 30 },
    );
  });

  it('have one schema per kind tagged with its group/version/kind, top-level fields closed to typos', () => {
    fc.assert(
      fc.property(all, (definitions) => {
        for (const gv of new ApiGroupIndex(definitions).allGroupVersions()) {
          const doc = openApiV3Document(gv) as unknown as V3Doc;
          for (const def of gv.resources) {
            const tagged = Object.values(doc.components.schemas).filter((s) =>
              (s['x-kubernetes-group-version-kind'] as Gvk[] | undefined)?.some((g) =>
                sameGvk(g, def),
              ),
            );
            expect(tagged).toHaveLength(1);
            const schema = tagged[0] ?? {};
            expect(Object.keys(properties(schema))).toEqual(
              expect.arrayContaining(['apiVersion', 'kind', 'metadata']),
            );
            expect(schema['x-kubernetes-preserve-unknown-fields']).toBeUndefined();
          }
        }
      }),
      { numRuns: 30 },
    );
  });

  it('have unique operation ids', () => {
    fc.assert(
      fc.property(all, (definitions) => {
        for (const doc of v3Documents(definitions)) {
          const ids = operations(doc).map((o) => o.op.operationId);
          expect(new Set(ids).size).toBe(ids.length);
        }
      }),
      { numRuns: 30 },
    );
  });

  it("offer only the operations a resource's verbs allow, named as kube names them", () => {
    const core = docWithPath(v3Documents(builtinResources), '/api/v1/namespaces');
    // namespaces have no deletecollection verb.
    expect(Object.keys(core.paths['/api/v1/namespaces'] ?? {}).sort()).toEqual([
      'get',
      'parameters',
      'post',
    ]);
    expect(core.paths['/api/v1/namespaces/{name}/finalize']?.put?.operationId).toBe(
      'replaceCoreV1NamespaceFinalize',
    );
    expect(
      core.paths['/api/v1/namespaces/{namespace}/pods/{name}/binding']?.post?.[
        'x-kubernetes-group-version-kind'
      ],
    ).toEqual({
      group: '',
      kind: 'Binding',
      version: 'v1',
    });
    expect(core.paths['/api/v1/pods']?.get?.operationId).toBe('listCoreV1PodForAllNamespaces');
  });

  it('carry the strategic merge patch keys kubectl apply needs for pods and pod templates', () => {
    const docs = v3Documents(builtinResources);
    const core = docWithPath(docs, '/api/v1/namespaces');
    const apps = docWithPath(docs, '/apis/apps/v1/');
    const pod = schemaOf(
      core,
      `#/components/schemas/${schemaNameOf({ group: '', version: 'v1', kind: 'Pod' })}`,
    );
    const deployment = schemaOf(
      apps,
      `#/components/schemas/${schemaNameOf({ group: 'apps', version: 'v1', kind: 'Deployment' })}`,
    );
    for (const [doc, kind, prefix] of [
      [core, pod, 'spec'],
      [apps, deployment, 'spec.template.spec'],
    ] as const) {
      for (const list of [
        'containers',
        'initContainers',
        'ephemeralContainers',
        'volumes',
        'imagePullSecrets',
      ]) {
        expect(at(doc, kind, `${prefix}.${list}`)['x-kubernetes-patch-merge-key'], list).toBe(
          'name',
        );
      }
      expect(at(doc, kind, `${prefix}.containers`)['x-kubernetes-patch-strategy']).toBe('merge');
      expect(at(doc, kind, `${prefix}.volumes`)['x-kubernetes-patch-strategy']).toBe(
        'merge,retainKeys',
      );
      const container = {
        properties: { c: at(doc, kind, `${prefix}.containers`)['items'] as Schema },
      };
      expect(at(doc, container, 'c.env')['x-kubernetes-patch-merge-key']).toBe('name');
      expect(at(doc, container, 'c.ports')['x-kubernetes-patch-merge-key']).toBe('containerPort');
      expect(at(doc, container, 'c.volumeMounts')['x-kubernetes-patch-merge-key']).toBe(
        'mountPath',
      );
      // Nested objects kubectl diffs on apply are declared (an undeclared one makes it fall back).
      for (const path of [
        'livenessProbe.httpGet.httpHeaders',
        'resources.limits',
        'securityContext.capabilities.add',
      ]) {
        expect(() => at(doc, container, `c.${path}`)).not.toThrow();
      }
    }
    expect(at(core, pod, 'metadata.ownerReferences')['x-kubernetes-patch-merge-key']).toBe('uid');
    expect(at(apps, deployment, 'spec.strategy')['x-kubernetes-patch-strategy']).toBe('retainKeys');
  });
});

describe('component schemas derived from the schema source', () => {
  const docs = v3Documents(builtinResources);
  const core = docWithPath(docs, '/api/v1/namespaces');
  const apps = docWithPath(docs, '/apis/apps/v1/');
  const component = (doc: V3Doc, name: string) => schemaOf(doc, `#/components/schemas/${name}`);
  const prop = (doc: V3Doc, name: string, key: string) =>
    properties(component(doc, name))[key] ?? {};
  const CORE = 'io.k8s.api.core.v1';
  const META = 'io.k8s.apimachinery.pkg.apis.meta.v1';

  it('declare every field upstream declares, described, and nothing open', () => {
    for (const name of [
      `${CORE}.PodSpec`,
      `${CORE}.Container`,
      `${CORE}.Volume`,
      `${META}.ObjectMeta`,
    ]) {
      const schema = component(core, name);
      expect(Object.keys(properties(schema)).sort(), name).toEqual(
        [...jsonFields(name).keys()].sort(),
      );
      expect(schema['description'], name).toEqual(expect.any(String));
    }
    const closure = JSON.stringify(
      Object.entries(core.components.schemas).filter(([name]) => name.startsWith(CORE)),
    );
    expect(closure).not.toContain('x-kubernetes-preserve-unknown-fields');
    expect(prop(core, `${CORE}.Container`, 'image')['description']).toMatch(
      /^Container image name\./,
    );
  });

  it('carry formats: int32, int64, byte, date-time, int-or-string and Quantity', () => {
    expect(prop(core, `${CORE}.ContainerPort`, 'containerPort')).toMatchObject({
      type: 'integer',
      format: 'int32',
    });
    expect(prop(core, `${META}.ObjectMeta`, 'generation')).toMatchObject({
      type: 'integer',
      format: 'int64',
    });
    expect(prop(core, `${CORE}.Secret`, 'data')['additionalProperties']).toEqual({
      type: 'string',
      format: 'byte',
    });
    expect(prop(core, `${META}.ObjectMeta`, 'creationTimestamp')['allOf']).toEqual([
      { $ref: `#/components/schemas/${META}.Time` },
    ]);
    expect(component(core, `${META}.Time`)).toMatchObject({ type: 'string', format: 'date-time' });
    expect(prop(core, `${CORE}.HTTPGetAction`, 'port')['allOf']).toEqual([
      { $ref: '#/components/schemas/io.k8s.apimachinery.pkg.util.intstr.IntOrString' },
    ]);
    expect(component(core, 'io.k8s.apimachinery.pkg.util.intstr.IntOrString')).toMatchObject({
      format: 'int-or-string',
    });
    expect(prop(core, `${CORE}.ResourceRequirements`, 'limits')['additionalProperties']).toEqual({
      $ref: '#/components/schemas/io.k8s.apimachinery.pkg.api.resource.Quantity',
    });
    expect(prop(core, `${META}.APIResource`, 'verbs')).toMatchObject({
      type: 'array',
      items: { type: 'string' },
    });
  });

  it('carry server-side apply list and map types, and required where upstream marks it', () => {
    expect(prop(core, `${CORE}.Container`, 'ports')).toMatchObject({
      'x-kubernetes-list-type': 'map',
      'x-kubernetes-list-map-keys': ['containerPort', 'protocol'],
    });
    expect(prop(core, `${CORE}.PodSpec`, 'tolerations')['x-kubernetes-list-type']).toBe('atomic');
    expect(prop(core, `${CORE}.ServiceSpec`, 'selector')['x-kubernetes-map-type']).toBe('atomic');
    expect(component(core, `${META}.LabelSelector`)['x-kubernetes-map-type']).toBe('atomic');
    expect(component(apps, 'io.k8s.api.apps.v1.DeploymentSpec')['required']).toEqual([
      'selector',
      'template',
    ]);
  });

  it('tag DeleteOptions with every group version served, as AddToGroupVersion registers it', () => {
    const gvks = component(apps, `${META}.DeleteOptions`)[
      'x-kubernetes-group-version-kind'
    ] as Gvk[];
    for (const def of builtinResources) {
      expect(gvks).toContainEqual({
        group: def.group,
        version: def.version,
        kind: 'DeleteOptions',
      });
    }
    expect(gvks).toContainEqual({ group: 'meta.k8s.io', version: 'v1', kind: 'DeleteOptions' });
  });
});

describe('OpenAPI v2 document', () => {
  it('is one swagger 2.0 document whose $refs all resolve into its definitions', () => {
    fc.assert(
      fc.property(all, (definitions) => {
        const doc = v2Document(definitions);
        expect(doc.swagger).toBe('2.0');
        for (const ref of refs(doc)) {
          expect(ref.startsWith('#/definitions/'), ref).toBe(true);
          expect(doc.definitions[ref.slice('#/definitions/'.length)], ref).toBeDefined();
        }
        expect(JSON.stringify(doc)).not.toContain('oneOf');
      }),
      { numRuns: 20 },
    );
  });

  it('marks PATCH bodies with the patch media types and create/patch with fieldValidation', () => {
    const patch =
      v2Document(builtinResources).paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}']
        ?.patch;
    expect(patch?.consumes).toContain('application/strategic-merge-patch+json');
    expect(patch?.['x-kubernetes-group-version-kind']).toEqual({
      group: 'apps',
      kind: 'Deployment',
      version: 'v1',
    });
    expect(patch?.parameters?.map((p) => p.name)).toEqual([
      'body',
      'dryRun',
      'fieldManager',
      'fieldValidation',
      'force',
    ]);
  });
});
