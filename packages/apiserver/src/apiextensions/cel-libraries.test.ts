import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileRules } from './cel-validation.js';
import type { JSONSchemaProps } from './types.js';

// Kubernetes' CEL lists and regex libraries in CRD rules: the examples of
// k8s.io/apiserver pkg/cel/library lists.go and regex.go (their doc comments), and properties.

/** The errors of `rule` on a root whose `v` is `value` (a list of `items`, or a string). */
function check(rule: string, value: unknown, items: JSONSchemaProps = { type: 'integer' }) {
  const schema: JSONSchemaProps = {
    type: 'object',
    properties: {
      v:
        typeof value === 'string'
          ? { type: 'string', maxLength: 64 }
          : { type: 'array', maxItems: 64, items },
    },
    'x-kubernetes-validations': [{ rule }],
  };
  const { rules, errors } = compileRules(schema, '');
  expect(errors).toEqual([]);
  return rules.validate({ v: value }).map((e) => e.detail);
}

const holds = (rule: string, value: unknown, items?: JSONSchemaProps) =>
  expect(check(rule, value, items)).toEqual([]);

describe('the lists library (lists.go)', () => {
  it('isSorted, sum, min, max, indexOf and lastIndexOf as its doc comments show', () => {
    holds('self.v.isSorted()', [1, 2, 3]);
    holds('!self.v.isSorted()', ['a', 'c', 'b'], { type: 'string' });
    holds('self.v.sum() == 6', [1, 2, 3]);
    holds('self.v.sum() == 3.5', [1.0, 2.5], { type: 'number' });
    holds('self.v.sum() == 0', []);
    holds('self.v.min() == 1 && self.v.max() == 3', [3, 1, 2]);
    holds("self.v.max() == 'b'", ['b', 'a'], { type: 'string' });
    holds(
      'self.v.indexOf(2) == 1 && self.v.lastIndexOf(2) == 2 && self.v.indexOf(4) == -1',
      [1, 2, 2, 3],
    );
  });

  it('min of an empty list and the sum of strings are evaluation errors, 422 causes naming the rule', () => {
    expect(check('self.v.min() == 1', [])).toEqual([
      'min called on empty list evaluating rule: self.v.min() == 1',
    ]);
    expect(check("self.v.sum() == 'ab'", ['a', 'b'], { type: 'string' })).toEqual([
      "no such overload: sum evaluating rule: self.v.sum() == 'ab'",
    ]);
  });

  it('on any list of integers they agree with their definitions (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: -50, max: 50 }), { maxLength: 20 }),
        fc.integer({ min: -50, max: 50 }),
        (list, x) => {
          const sorted = list.every((v, i) => i === 0 || (list[i - 1] as number) <= v);
          const sum = list.reduce((a, b) => a + b, 0);
          holds(
            `self.v.isSorted() == ${sorted} && self.v.sum() == ${sum} && self.v.indexOf(${x}) == ${list.indexOf(x)} && self.v.lastIndexOf(${x}) == ${list.lastIndexOf(x)}`,
            list,
          );
          if (list.length)
            holds(
              `self.v.min() == ${Math.min(...list)} && self.v.max() == ${Math.max(...list)}`,
              list,
            );
        },
      ),
      { numRuns: 50 },
    );
  });
});

describe('the regex library (regex.go)', () => {
  it('find and findAll as its doc comments show, with RE2 syntax', () => {
    holds("self.v.find('[0-9]+') == '123'", 'abc 123');
    holds("self.v.find('[0-9]+') == ''", 'abc');
    holds("self.v.findAll('[0-9]+') == ['123', '456']", '123 abc 456');
    holds("self.v.findAll('[0-9]+', 1) == ['123']", '123 abc 456');
    holds("self.v.findAll('[0-9]+', 0) == []", '123 abc 456');
    holds("self.v.findAll('x*').size() == 4", 'abc');
  });

  it('a pattern that does not parse is an evaluation error', () => {
    expect(check("self.v.find('(') == ''", 'abc')[0]).toMatch(
      /^error parsing regexp: .* evaluating rule: self\.v\.find\('\('\) == ''$/,
    );
  });

  it('a pattern that backtracking engines take exponential time on is answered at once (RE2)', () => {
    const started = Date.now();
    holds("self.v.find('(a+)+$') == ''", `${'a'.repeat(40)}!`);
    expect(Date.now() - started).toBeLessThan(2000);
  });
});
