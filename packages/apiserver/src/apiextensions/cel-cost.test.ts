import { CelScalar, celEnv, celFunc, parse, plan } from '@bufbuild/cel';
import type { Status } from '@listwatch/api';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { serverForFile } from '../testing/test-server.js';
import {
  COST_LIMIT_EXCEEDED,
  costFunc,
  meteredExpression,
  PER_CALL_LIMIT,
  RUNTIME_CEL_COST_BUDGET,
  runMetered,
} from './cel-cost.js';
import { compileRules } from './cel-validation.js';
import { waitServed } from './crd.test-helper.js';
import type { CustomResourceDefinition, JSONSchemaProps } from './types.js';

// The runtime cost budget of x-kubernetes-validations (apiextensions-apiserver
// pkg/apiserver/schema/cel/validation.go with k8s.io/apiserver pkg/apis/cel/config.go): a call
// past PerCallLimit, or the rules of one object past RuntimeCELCostBudget, end the validation
// with kube's message; a rule inside budget keeps its meaning.

const f = serverForFile('cel-cost');
const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

/** A quadratic rule over a list of up to `maxItems` strings: what static cost lets through. */
const QUADRATIC = 'self.all(x, self.all(y, x == y || x != y))';

function listSchema(maxItems: number, rule = QUADRATIC): JSONSchemaProps {
  return {
    type: 'object',
    properties: {
      spec: {
        type: 'object',
        properties: {
          names: {
            type: 'array',
            maxItems,
            items: { type: 'string', maxLength: 8 },
            'x-kubernetes-validations': [{ rule }],
          },
        },
      },
    },
  };
}

const names = (n: number) => Array.from({ length: n }, (_, i) => `n${i}`);

/**
 * The quadratic rule over `self`, metered as the validator meters it, with `step(y)` counting
 * the inner steps that ran: what a rule does, counted instead of timed.
 */
function countedQuadratic(self: string[]) {
  let steps = 0;
  const step = celFunc('step', [CelScalar.DYN], CelScalar.BOOL, () => ++steps > 0);
  const env = celEnv({ variables: { self: CelScalar.DYN }, funcs: [step, costFunc] });
  const rule = parse('self.all(x, self.all(y, step(y) && (x == y || x != y)))');
  const { parsed, base } = meteredExpression(rule);
  const program = plan(env, parsed);
  const run = runMetered(() => program({ self }), base, PER_CALL_LIMIT);
  return { steps, base, ...run };
}

describe('the runtime CEL cost budget', () => {
  it('a rule looping over a big list past the per-call limit is Invalid with kube’s message', () => {
    const { rules, errors } = compileRules(listSchema(800), '');
    expect(errors).toEqual([]);
    const result = rules.validate({ spec: { names: names(800) } });
    expect(result).toEqual([
      {
        type: 'FieldValueInvalid',
        field: 'spec.names',
        badValue: 'array',
        detail: `'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: ${QUADRATIC}`,
      },
    ]);
  });

  it('a call is stopped at the step that passes the per-call limit: the steps that ran cost no more than the limit, far fewer than the loop has', () => {
    // Each step is charged before it runs: one and two items give the cost of an inner step.
    const one = countedQuadratic(names(1));
    const two = countedQuadratic(names(2));
    expect([one.steps, two.steps, one.exceeded, two.exceeded]).toEqual([1, 4, false, false]);
    const perStep = (two.cost - 2 * one.cost + one.base) / 2;
    expect(perStep).toBeGreaterThan(0);
    const stopped = countedQuadratic(names(800));
    expect(stopped.exceeded).toBe(true);
    expect(stopped.result).toMatchObject({ message: COST_LIMIT_EXCEEDED });
    expect(stopped.steps * perStep).toBeLessThanOrEqual(PER_CALL_LIMIT);
    expect(stopped.steps).toBeLessThan(800 * 800);
  });

  it('the same rule over a short list is evaluated as written', () => {
    const { rules, errors } = compileRules(
      listSchema(100, 'self.all(x, self.exists(y, y == x + "!"))'),
      '',
    );
    expect(errors).toEqual([]);
    expect(rules.validate({ spec: { names: ['a', 'a!'] } })).toEqual([
      {
        type: 'FieldValueInvalid',
        field: 'spec.names',
        badValue: 'array',
        detail: 'failed rule: self.all(x, self.exists(y, y == x + "!"))',
      },
    ]);
    expect(rules.validate({ spec: { names: [] } })).toEqual([]);
  });

  it('a messageExpression past the per-call limit ends the validation with kube’s messageExpression message', () => {
    const message = "self.all(x, self.all(y, x == y || x != y)) ? 'a' : 'b'";
    const schema = listSchema(800, 'false');
    const names = (schema.properties as Record<string, JSONSchemaProps>)['spec']!;
    const list = (names.properties as Record<string, JSONSchemaProps>)['names']!;
    list['x-kubernetes-validations'] = [{ rule: 'false', messageExpression: message }];
    const { rules, errors } = compileRules(schema, '');
    expect(errors).toEqual([]);
    expect(
      rules.validate({ spec: { names: Array.from({ length: 800 }, (_, i) => `n${i}`) } }),
    ).toEqual([
      {
        type: 'FieldValueInvalid',
        field: 'spec.names',
        badValue: 'array',
        detail: `no further validation rules will be run due to call cost exceeds limit for messageExpression: ${JSON.stringify(message)}`,
      },
    ]);
  });

  it('rules on many items, each under the per-call limit, share the object’s budget: past it the validation stops with kube’s message', () => {
    // Each item's spec.names has the quadratic rule: ~0.75M per call, 40 calls.
    const item = { spec: { names: names(250) } };
    const { rules, errors } = compileRules(
      {
        type: 'object',
        properties: { items: { type: 'array', maxItems: 40, items: listSchema(250) } },
      },
      '',
    );
    expect(errors).toEqual([]);
    const result = rules.validate({ items: Array.from({ length: 40 }, () => item) });
    expect(result).toHaveLength(1);
    expect(result[0]?.detail).toBe(
      'validation failed due to running out of cost budget, no further validation rules will be run',
    );
    expect(result[0]?.field).toMatch(/^items\[(1\d|2\d|3\d)\]\.spec\.names$/);
  });

  // That a stopped call runs no step past the limit is counted above, for any list.
  it('whatever the list, a quadratic rule is either evaluated to its value or stopped by the budget (property)', () => {
    const { rules, errors } = compileRules(
      listSchema(800, 'self.all(x, self.exists(y, y == x))'),
      '',
    );
    expect(errors).toEqual([]);
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 800 }), (n) => {
        const result = rules.validate({ spec: { names: names(n) } });
        // exists stops at the item itself: about n²/2 steps of ~7, under the limit up to ~500.
        if (n <= 300) expect(result).toEqual([]);
        else if (result.length) {
          expect(result).toHaveLength(1);
          expect(result[0]?.detail).toContain('call cost exceeds limit');
        }
      }),
      { numRuns: 20 },
    );
    expect(PER_CALL_LIMIT).toBe(1_000_000);
    expect(RUNTIME_CEL_COST_BUDGET).toBe(10_000_000);
  });

  it('over HTTP: a custom object whose rule runs past the per-call limit is 422 Invalid, not a hang', async () => {
    const group = 'cost.example.com';
    const crd: CustomResourceDefinition = {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: `rosters.${group}` },
      spec: {
        group,
        scope: 'Namespaced',
        names: { plural: 'rosters', singular: 'roster', kind: 'Roster', listKind: 'RosterList' },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: { openAPIV3Schema: listSchema(800) },
          },
        ],
      },
    };
    expect((await f.api.post(CRDS, crd)).status).toBe(201);
    await waitServed(f.api, crd);
    const path = `/apis/${group}/v1/namespaces/${await f.namespace()}/rosters`;
    const object = (n: number, name: string) => ({
      apiVersion: `${group}/v1`,
      kind: 'Roster',
      metadata: { name },
      spec: { names: names(n) },
    });
    expect((await f.api.post(path, object(10, 'small'))).status).toBe(201);
    const big = await f.api.post<Status>(path, object(800, 'big'));
    expect(big.status).toBe(422);
    expect(big.body.reason).toBe('Invalid');
    expect(big.body.message).toBe(
      `Roster.${group} "big" is invalid: spec.names: Invalid value: "array": 'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: ${QUADRATIC}`,
    );
  });
});
