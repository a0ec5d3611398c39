import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ApiError } from './api-error.js';
import {
  FieldSelector,
  escapeFieldValue,
  exactNameAndNamespace,
  parseFieldSelector,
  unescapeFieldValue,
  type FieldRequirement,
} from './field-selector.js';
import type { KubeObject } from './object-meta.js';
import type { ResourceDefinition } from './resource-definition.js';

function errorOf(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
  throw new Error('no error');
}

const pods: Pick<ResourceDefinition, 'selectableFields'> = {
  selectableFields: {
    'spec.nodeName': (o) => String((o as { spec?: { nodeName?: string } }).spec?.nodeName ?? ''),
    'status.phase': (o) => String((o as { status?: { phase?: string } }).status?.phase ?? ''),
  },
};
const configmaps: Pick<ResourceDefinition, 'selectableFields'> = { selectableFields: {} };

// Examples from k8s.io/apimachinery/pkg/fields/selector_test.go.
describe('parseFieldSelector (fields/selector.go)', () => {
  it.each(['x=a,y=b,z=c', '', 'x!=a,y=b', 'x=a||y\\=b', 'x=a\\=\\=b'])(
    'good selector %j prints back unchanged (TestSelectorParse)',
    (input) => {
      expect(parseFieldSelector(input).toString()).toBe(input);
    },
  );

  it.each(['x=a||y=b', 'x==a==b', 'x=a,b', 'x in (a)', 'x in (a,b,c)', 'x'])(
    'bad selector %j is a 400 BadRequest (TestSelectorParse)',
    (input) => {
      const err = errorOf(() => parseFieldSelector(input));
      expect(err.code).toBe(400);
      expect(err.reason).toBe('BadRequest');
    },
  );

  it.each([
    ['x=a,b', "invalid selector: 'x=a,b'; can't understand 'b'"],
    ['x', "invalid selector: 'x'; can't understand 'x'"],
    ['x=a||y=b', 'invalid field selector: unescaped character in value: 61'],
    ['k=\\a', 'invalid field selector: invalid escape sequence: \\a'],
    ['k=\\', 'invalid field selector: invalid escape sequence: \\'],
  ])('%j fails with Kubernetes message %j', (input, message) => {
    expect(errorOf(() => parseFieldSelector(input)).message).toBe(message);
  });

  it('the order of terms does not change the parse (TestDeterministicParse)', () => {
    expect(parseFieldSelector('x=a,a=x').toString()).toBe(parseFieldSelector('a=x,x=a').toString());
  });

  it('== parses as = and prints as =', () => {
    const selector = parseFieldSelector('status.phase==Running');
    expect(selector.requirements).toEqual([
      { field: 'status.phase', operator: '=', value: 'Running' },
    ]);
    expect(selector.toString()).toBe('status.phase=Running');
  });

  it('empty terms are skipped and escaped commas stay in values (TestSplitTerms)', () => {
    expect(parseFieldSelector(',a=a,').toString()).toBe('a=a');
    expect(parseFieldSelector('k=\\,,k2=v2').requirements).toEqual([
      { field: 'k2', operator: '=', value: 'v2' },
      { field: 'k', operator: '=', value: ',' },
    ]);
    expect(parseFieldSelector('함=수,목=록').matches({ 함: '수', 목: '록' })).toBe(true);
  });

  it.each([
    ['', { x: 'y' }, true],
    ['x=y', { x: 'y' }, true],
    ['x=y,z=w', { x: 'y', z: 'w' }, true],
    ['x!=y,z!=w', { x: 'z', z: 'a' }, true],
    ['notin=in', { notin: 'in' }, true],
    ['x=y', { x: 'z' }, false],
    ['x=y,z=w', { x: 'w', z: 'w' }, false],
    ['x!=y,z!=w', { x: 'z', z: 'w' }, false],
    [
      'foo=bar,baz=blah,complex=\\=value\\\\\\,\\\\',
      { foo: 'bar', baz: 'blah', complex: '=value\\,\\' },
      true,
    ],
    ['foo=bar,foobar=bar,baz=blah', { foo: 'bar', baz: 'blah' }, false],
    ['missing=', {}, true],
    ['missing!=', {}, false],
  ] as const)('%j matching %j is %s (TestSelectorMatches)', (selector, fields, want) => {
    expect(parseFieldSelector(selector).matches(fields)).toBe(want);
  });

  it.each([
    ['', ''],
    ['a', 'a'],
    ['=', '\\='],
    [',', '\\,'],
    ['\\', '\\\\'],
    ['\\=\\,\\', '\\\\\\=\\\\\\,\\\\'],
  ])('%j escapes to %j and back (TestEscapeValue)', (raw, escaped) => {
    expect(escapeFieldValue(raw)).toBe(escaped);
    expect(unescapeFieldValue(escaped)).toBe(raw);
  });

  it('requiresExactMatch sees = terms only (TestRequiresExactMatch)', () => {
    const selector = parseFieldSelector('test=b,other!=c');
    expect(selector.requiresExactMatch('test')).toBe('b');
    expect(selector.requiresExactMatch('other')).toBeUndefined();
    expect(parseFieldSelector('test=').requiresExactMatch('test')).toBe('');
  });
});

// The field label conversion of kube-apiserver (runtime.Scheme.ConvertFieldLabel).
describe('FieldSelector.validateFor', () => {
  it('metadata.name and metadata.namespace are selectable on every resource', () => {
    const selector = parseFieldSelector('metadata.name=a,metadata.namespace=b');
    expect(selector.validateFor(configmaps)).toBe(selector);
    expect(selector.validateFor(pods)).toBe(selector);
  });

  it('an unknown field on a kind with field conversions is 400 "field label not supported: X"', () => {
    const err = errorOf(() => parseFieldSelector('spec.bogus=x').validateFor(pods));
    expect(err.status).toMatchObject({
      code: 400,
      reason: 'BadRequest',
      message: 'field label not supported: spec.bogus',
    });
  });

  it('an unknown field on a kind without its own fields gets DefaultMetaV1FieldSelectorConversion wording', () => {
    expect(errorOf(() => parseFieldSelector('data.x=1').validateFor(configmaps)).message).toBe(
      '"data.x" is not a known field selector: only "metadata.name", "metadata.namespace"',
    );
  });

  it('matcherFor reads fields through the definition and defaults', () => {
    const pod = (name: string, node: string): KubeObject => ({
      metadata: { name, namespace: 'ns' },
      spec: { nodeName: node },
    });
    const match = parseFieldSelector('spec.nodeName=n1,metadata.namespace=ns').matcherFor(pods);
    expect(match(pod('a', 'n1'))).toBe(true);
    expect(match(pod('a', 'n2'))).toBe(false);
    expect(parseFieldSelector('').matcherFor(pods)(pod('a', 'n2'))).toBe(true);
    expect(() => parseFieldSelector('spec.x=1').matcherFor(pods)).toThrow(ApiError);
  });
});

describe('exactNameAndNamespace', () => {
  it('finds metadata.name=X and metadata.namespace=Y (SelectionPredicate.MatchesSingle)', () => {
    expect(
      exactNameAndNamespace(parseFieldSelector('metadata.name=web,metadata.namespace=prod')),
    ).toEqual({
      name: 'web',
      namespace: 'prod',
    });
    expect(
      exactNameAndNamespace(parseFieldSelector('metadata.name!=web,status.phase=Running')),
    ).toEqual({});
  });
});

// --- properties ------------------------------------------------------------------------------

const fieldName = fc.stringMatching(/^[a-zA-Z][a-zA-Z.]{0,12}$/);
const anyValue = fc.string({
  unit: fc.constantFrom('a', 'b', '\\', ',', '=', '!', ' ', 'é', '😀'),
  maxLength: 10,
});
const requirementArb: fc.Arbitrary<FieldRequirement> = fc.record({
  field: fieldName,
  operator: fc.constantFrom<'=' | '!='>('=', '!='),
  value: anyValue,
});

function parsesOrApiError(input: string): void {
  try {
    expect(parseFieldSelector(input)).toBeInstanceOf(FieldSelector);
  } catch (err) {
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).code).toBe(400);
  }
}

describe('field selector properties', () => {
  it('any input either parses or is a 400 ApiError, never another exception', () => {
    fc.assert(
      fc.property(
        fc.string({
          unit: fc.constantFrom('a', '.', '=', '!', ',', '\\', ' ', '('),
          maxLength: 30,
        }),
        parsesOrApiError,
      ),
    );
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 30 }), parsesOrApiError));
  });

  it('any value escapes and unescapes to itself', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary' }),
        (value) => unescapeFieldValue(escapeFieldValue(value)) === value,
      ),
    );
  });

  it('a selector prints, re-parses and prints the same, with the same requirements', () => {
    fc.assert(
      fc.property(fc.array(requirementArb, { maxLength: 5 }), (requirements) => {
        const selector = FieldSelector.fromRequirements(requirements);
        const reparsed = parseFieldSelector(selector.toString());
        expect(reparsed.toString()).toBe(selector.toString());
        expect(reparsed.requirements).toEqual(selector.requirements);
      }),
    );
  });

  it('matching is the AND of equal / not-equal on each field', () => {
    const fields = fc.dictionary(fc.constantFrom('a', 'b', 'c'), fc.constantFrom('', 'x', 'y'));
    const req = fc.record({
      field: fc.constantFrom('a', 'b', 'c'),
      operator: fc.constantFrom<'=' | '!='>('=', '!='),
      value: fc.constantFrom('', 'x', 'y'),
    });
    fc.assert(
      fc.property(fc.array(req, { maxLength: 4 }), fields, (requirements, set) => {
        const expected = requirements.every(
          (r) => ((set[r.field] ?? '') === r.value) === (r.operator === '='),
        );
        const selector = FieldSelector.fromRequirements(requirements);
        expect(selector.matches(set)).toBe(expected);
        expect(selector.matches((f) => set[f])).toBe(expected);
        expect(parseFieldSelector(selector.toString()).matches(set)).toBe(expected);
      }),
    );
  });
});
