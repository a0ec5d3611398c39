import type { Status } from '@listwatch/api';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { serverForFile } from '../testing/test-server.js';
import { compileRules } from './cel-validation.js';
import { foo, fooCrd, waitServed } from './crd.test-helper.js';
import type { CustomResourceDefinition, JSONSchemaProps } from './types.js';

// x-kubernetes-validations evaluated with @bufbuild/cel, as apiextensions-apiserver
// pkg/apiserver/schema/cel/validation.go does: rules, messages and messageExpression, reasons and
// fieldPath, transition rules with oldSelf, and the static cost limit.

const f = serverForFile('cel');
const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

function withRules(
  group: string,
  specRules: unknown[],
  extra: Record<string, unknown> = {},
): CustomResourceDefinition {
  const crd = fooCrd({ group });
  const schema = crd.spec.versions[0]!.schema!.openAPIV3Schema as {
    properties: { spec: Record<string, unknown> };
  };
  Object.assign(schema.properties.spec, { 'x-kubernetes-validations': specRules }, extra);
  return crd;
}

describe('CEL validation rules (x-kubernetes-validations)', () => {
  it("the sample-controller rule self.replicas <= 10 rejects 11 with the rule's message", async () => {
    const crd = withRules('cel1.example.com', [
      { rule: 'self.replicas <= 5', message: 'replicas must be at most 5' },
      {
        rule: "self.deploymentName.startsWith('web')",
        messageExpression: "'deploymentName ' + self.deploymentName + ' must start with web'",
      },
      { rule: 'self.replicas >= 1', reason: 'FieldValueForbidden', fieldPath: '.replicas' },
    ]);
    expect((await f.api.post(CRDS, crd)).status).toBe(201);
    await waitServed(f.api, crd);
    const ns = await f.namespace();
    const path = `/apis/cel1.example.com/v1/namespaces/${ns}/foos`;
    expect(
      (
        await f.api.post(
          path,
          foo('ok', { deploymentName: 'web-1', replicas: 3 }, 'cel1.example.com'),
        )
      ).status,
    ).toBe(201);
    const bad = await f.api.post<Status>(
      path,
      foo('bad', { deploymentName: 'db', replicas: 0 }, 'cel1.example.com'),
    );
    expect(bad.status).toBe(422);
    expect(bad.body.details?.causes).toEqual([
      {
        reason: 'FieldValueInvalid',
        field: 'spec',
        message: 'Invalid value: "object": deploymentName db must start with web',
      },
      {
        reason: 'FieldValueForbidden',
        field: 'spec.replicas',
        message: 'Forbidden: failed rule: self.replicas >= 1',
      },
    ]);
    const many = await f.api.post<Status>(
      path,
      foo('many', { deploymentName: 'web', replicas: 7 }, 'cel1.example.com'),
    );
    expect(many.body.message).toContain(
      'spec: Invalid value: "object": replicas must be at most 5',
    );
  });

  it('transition rules compare with the stored object on update only', async () => {
    const crd = withRules('cel2.example.com', [
      { rule: 'self.replicas >= oldSelf.replicas', message: 'replicas may not decrease' },
    ]);
    expect((await f.api.post(CRDS, crd)).status).toBe(201);
    await waitServed(f.api, crd);
    const ns = await f.namespace();
    const path = `/apis/cel2.example.com/v1/namespaces/${ns}/foos`;
    expect(
      (await f.api.post(path, foo('t', { deploymentName: 'd', replicas: 3 }, 'cel2.example.com')))
        .status,
    ).toBe(201);
    expect((await f.api.patch(`${path}/t`, { spec: { replicas: 4 } })).status).toBe(200);
    const down = await f.api.patch<Status>(`${path}/t`, { spec: { replicas: 2 } });
    expect(down.status).toBe(422);
    expect(down.body.details?.causes?.[0]?.message).toBe(
      'Invalid value: "object": replicas may not decrease',
    );
  });

  it('a rule that does not compile, or costs too much, makes the CRD a 422', async () => {
    const broken = await f.api.post<Status>(
      CRDS,
      withRules('cel3.example.com', [{ rule: 'self.replicas <=' }]),
    );
    expect(broken.status).toBe(422);
    expect(broken.body.details?.causes?.[0]?.field).toBe(
      'spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule',
    );
    expect(broken.body.details?.causes?.[0]?.message).toContain('compilation failed');
    const costly = await f.api.post<Status>(
      CRDS,
      withRules('cel4.example.com', [
        { rule: 'self.tags.all(a, self.tags.all(b, self.tags.all(c, a + b + c != "")))' },
      ]),
    );
    expect(costly.status).toBe(422);
    expect(costly.body.details?.causes?.[0]?.message).toContain(
      'estimated rule cost exceeds budget by factor of more than 100x',
    );
    const bounded = withRules('cel5.example.com', [
      { rule: 'self.tags.all(a, self.tags.all(b, a == b || a != b))' },
    ]);
    const spec = (
      bounded.spec.versions[0]!.schema!.openAPIV3Schema as {
        properties: { spec: { properties: { tags: JSONSchemaProps } } };
      }
    ).properties.spec;
    spec.properties.tags['maxItems'] = 10;
    expect((await f.api.post(CRDS, bounded)).status).toBe(201);
  });

  it('rules never throw, whatever the object and rule (fuzz)', () => {
    const schema: JSONSchemaProps = {
      type: 'object',
      'x-kubernetes-preserve-unknown-fields': true,
      'x-kubernetes-validations': [
        { rule: 'has(self.a) ? self.a == 1 : true' },
        { rule: 'self.size() < 5' },
        { rule: "string(self) != ''", messageExpression: 'string(self.b)' },
      ],
    };
    const { rules, errors } = compileRules(schema, 'schema');
    expect(errors).toEqual([]);
    fc.assert(
      fc.property(
        fc.jsonValue({ maxDepth: 3 }),
        fc.option(fc.jsonValue({ maxDepth: 3 })),
        (value, old) => {
          expect(Array.isArray(rules.validate(value, old ?? undefined))).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), (rule) => {
        const compiled = compileRules(
          { type: 'object', 'x-kubernetes-validations': [{ rule }] },
          's',
        );
        expect(Array.isArray(compiled.rules.validate({ a: 1 }))).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});
