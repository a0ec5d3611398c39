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

  it('patterns are RE2, as Go’s regexp: what backtracking engines take exponential time on is answered, what only they can run does not parse', () => {
    // 2^40 steps for a backtracking engine: this returns only on a linear-time one.
    holds("self.v.find('(a+)+$') == ''", `${'a'.repeat(40)}!`);
    for (const pattern of ['(?=a)', '(a)\\\\1'])
      expect(check(`self.v.find('${pattern}') == ''`, 'aa')[0]).toMatch(/^error parsing regexp: /);
  });
});

describe('the quantity library (quantity.go)', () => {
  it('quantity, isQuantity, sign, comparisons, asInteger, asApproximateFloat, isInteger, add and sub', () => {
    holds("quantity(self.v).isGreaterThan(quantity('1Gi'))", '2Gi');
    holds("quantity(self.v).isLessThan(quantity('1001m'))", '1');
    holds("quantity(self.v) == quantity('1000m') && quantity('1Ki') == quantity('1024')", '1');
    holds("quantity(self.v).compareTo(quantity('50k')) == -1", '5k');
    holds("isQuantity(self.v) && !isQuantity('1.5.0')", '20M');
    holds("sign(quantity(self.v)) == -1 && sign(quantity('0')) == 0", '-3m');
    holds('quantity(self.v).asInteger() == 1536 && quantity(self.v).isInteger()', '1.5Ki');
    holds('!quantity(self.v).isInteger() && quantity(self.v).asApproximateFloat() == 1.5', '1500m');
    holds(
      "quantity(self.v).add(quantity('500m')) == quantity('2') && quantity(self.v).sub(1) == quantity('500m')",
      '1.5',
    );
    holds('quantity(self.v).add(2).asInteger() == 5', '3');
  });

  it('a string that is no quantity, and asInteger of a fraction, are evaluation errors in kube’s words', () => {
    expect(check('quantity(self.v).sign() == 1', '1x')).toHaveLength(1);
    expect(check("quantity(self.v) == quantity('1')", 'abc')).toEqual([
      "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$' evaluating rule: quantity(self.v) == quantity('1')",
    ]);
    expect(check('quantity(self.v).asInteger() == 1', '1500m')).toEqual([
      'cannot convert value to integer evaluating rule: quantity(self.v).asInteger() == 1',
    ]);
  });

  it('comparisons agree with the quantities’ values, whatever their suffixes (property)', () => {
    const suffixes = [
      ['m', 1e-3],
      ['', 1],
      ['k', 1e3],
      ['Ki', 1024],
      ['M', 1e6],
      ['Mi', 1048576],
    ] as const;
    const q = fc.tuple(fc.integer({ min: 0, max: 5000 }), fc.constantFrom(...suffixes));
    fc.assert(
      fc.property(q, q, ([a, [sa, fa]], [b, [sb, fb]]) => {
        const x = a * fa;
        const y = b * fb;
        const expected = Math.abs(x - y) < 1e-9 ? 0 : x < y ? -1 : 1;
        holds(`quantity('${a}${sa}').compareTo(quantity(self.v)) == ${expected}`, `${b}${sb}`);
      }),
      { numRuns: 60 },
    );
  });
});

describe('the URL library (urls.go)', () => {
  it('url, isURL and the getters as its doc comments show', () => {
    holds(
      "url(self.v).getScheme() == 'https' && url(self.v).getHost() == 'example.com:80' && url(self.v).getHostname() == 'example.com' && url(self.v).getPort() == '80'",
      'https://user:pass@example.com:80/path?query=val#fragment',
    );
    holds(
      "url(self.v).getHostname() == '::1' && url(self.v).getHost() == '[::1]:80'",
      'https://[::1]:80/',
    );
    holds("url(self.v).getPort() == ''", 'https://example.com/');
    holds(
      "url(self.v).getEscapedPath() == '/path%20with%20spaces/'",
      'https://example.com/path with spaces/',
    );
    holds("url(self.v).getEscapedPath() == '/a%2Fb'", 'https://example.com/a%2Fb');
    holds(
      "url(self.v).getQuery() == {'k1': ['a'], 'k2': ['b', 'c'], 'k 3': ['x y']}",
      'https://example.com/path?k1=a&k2=b&k2=c&k+3=x%20y',
    );
    holds(
      "isURL(self.v) && isURL('/absolute-path') && !isURL('example.com') && !isURL('')",
      'https://example.com/path',
    );
    holds(
      "url(self.v) == url('https://example.com/a') && url(self.v) != url('https://example.com/b')",
      'https://example.com/a',
    );
  });

  it('what Go’s url.ParseRequestURI refuses is an evaluation error in kube’s words', () => {
    expect(check('url(self.v).getScheme() == ""', 'example.com')).toEqual([
      'URL parse error during conversion from string: parse "example.com": invalid URI for request evaluating rule: url(self.v).getScheme() == ""',
    ]);
    expect(check('url(self.v).getScheme() == ""', 'https://host:port/')[0]).toContain(
      'parse "https://host:port/": invalid port ":port" after host',
    );
  });
});

describe('hostile library calls', () => {
  const text = fc.oneof(
    fc.string({ maxLength: 12 }),
    fc.constantFrom(
      '1Gi',
      '-0.5m',
      '1e3',
      '9223372036854775807',
      '1.5.0',
      'https://[::1',
      '//x',
      '*',
      '(a+)+$',
      '[',
      'a*?',
      '%zz',
    ),
  );
  const call = fc.oneof(
    text.map((s) => `url(${JSON.stringify(s)}).getQuery().size() >= 0`),
    text.map((s) => `isURL(${JSON.stringify(s)}) || true`),
    fc
      .tuple(text, fc.integer({ min: -3, max: 3 }))
      .map(([s, i]) => `quantity(${JSON.stringify(s)}).add(${i}).isInteger() || true`),
    fc
      .tuple(text, text)
      .map(
        ([a, b]) => `quantity(${JSON.stringify(a)}).compareTo(quantity(${JSON.stringify(b)})) <= 1`,
      ),
    fc
      .tuple(text, text, fc.integer({ min: -2, max: 3 }))
      .map(([s, p, n]) => `${JSON.stringify(s)}.findAll(${JSON.stringify(p)}, ${n}).size() >= 0`),
    fc.constantFrom(
      'self.v.sum() >= 0',
      'self.v.min() <= self.v.max()',
      'self.v.isSorted() || true',
      'self.v.indexOf(self.v) == -1',
    ),
  );

  it('any call of the libraries on any list is true, false or an evaluation error, never a throw or a hang (property)', () => {
    fc.assert(
      fc.property(
        call,
        fc.array(fc.oneof(fc.integer(), fc.string({ maxLength: 3 })), { maxLength: 5 }),
        (rule, value) => {
          const schema: JSONSchemaProps = {
            type: 'object',
            properties: {
              v: { type: 'array', maxItems: 8, items: { 'x-kubernetes-int-or-string': true } },
            },
            'x-kubernetes-validations': [{ rule }],
          };
          const { rules } = compileRules(schema, '');
          // Returning is the event: a throw fails the property, a hang the test.
          const errors = rules.validate({ v: value });
          for (const e of errors) expect(typeof e.detail).toBe('string');
        },
      ),
      { numRuns: 300 },
    );
  });
});
