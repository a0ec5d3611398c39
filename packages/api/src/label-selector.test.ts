import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ApiError } from './api-error.js';
import {
  LabelSelector,
  newLabelRequirement,
  type LabelRequirement,
  type LabelSelectorOperator,
} from './label-selector.js';
import { parseLabelSelector } from './label-selector-parser.js';
import { labelSelectorFromMatchLabels } from './meta-label-selector.js';

function parseError(selector: string): ApiError {
  try {
    parseLabelSelector(selector);
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
  throw new Error(`${JSON.stringify(selector)} parsed`);
}

// Examples from k8s.io/apimachinery/pkg/labels/selector_test.go.
describe('parseLabelSelector (labels/selector.go)', () => {
  it.each([
    'x=a,y=b,z=c',
    '',
    'x!=a,y=b',
    'x=',
    'x= ',
    'x=,z= ',
    'x= ,z= ',
    '!x',
    'x>1',
    'x>1,z<5',
  ])('good selector %j prints back without its spaces (TestSelectorParse)', (input) => {
    expect(parseLabelSelector(input).toString()).toBe(input.replaceAll(' ', ''));
  });

  it.each(['x=a||y=b', 'x==a==b', '!x=a', 'x<a'])(
    'bad selector %j is a 400 BadRequest (TestSelectorParse)',
    (input) => {
      const err = parseError(input);
      expect(err.code).toBe(400);
      expect(err.reason).toBe('BadRequest');
    },
  );

  it('the order of requirements does not change the parse (TestDeterministicParse)', () => {
    expect(parseLabelSelector('x=a,a=x').toString()).toBe(parseLabelSelector('a=x,x=a').toString());
    expect(parseLabelSelector('x=a,a=x').toString()).toBe('a=x,x=a');
  });

  it.each([
    ['', { x: 'y' }, true],
    ['x=y', { x: 'y' }, true],
    ['x=y,z=w', { x: 'y', z: 'w' }, true],
    ['x!=y,z!=w', { x: 'z', z: 'a' }, true],
    ['notin=in', { notin: 'in' }, true],
    ['x', { x: 'z' }, true],
    ['!x', { y: 'z' }, true],
    ['x>1', { x: '2' }, true],
    ['x<1', { x: '0' }, true],
    ['x=z', {}, false],
    ['x=y', { x: 'z' }, false],
    ['x=y,z=w', { x: 'w', z: 'w' }, false],
    ['x!=y,z!=w', { x: 'z', z: 'w' }, false],
    ['x', { y: 'z' }, false],
    ['!x', { x: 'z' }, false],
    ['x>1', { x: '0' }, false],
    ['x<1', { x: '2' }, false],
    ['z>1', { z: 'v2' }, false],
    ['x notin ()', { y: '' }, true],
    ['x in ()', { y: 'baz' }, false],
    ['x!=y', {}, true],
  ] as const)('%j matching %j is %s (TestSelectorMatches)', (selector, labels, want) => {
    expect(parseLabelSelector(selector).matches(labels)).toBe(want);
  });

  it.each([
    ['\rx', 'x'],
    [
      'this-is-another-dns.domain.com/key-with-dash in (so,what)',
      'this-is-another-dns.domain.com/key-with-dash in (so,what)',
    ],
    [
      '0.1.2.domain/99 notin (10.10.100.1, tick.tack.clock)',
      '0.1.2.domain/99 notin (10.10.100.1,tick.tack.clock)',
    ],
    ['foo  in\t (abc)', 'foo in (abc)'],
    ['x notin\n (abc)', 'x notin (abc)'],
    ['x  notin\t\t\t(abc,def)', 'x notin (abc,def)'],
    ['x in (abc,)', 'x in (,abc)'],
    ['x in ()', 'x in ()'],
    ['x notin (abc,,def),bar,z in (),w', 'bar,w,x notin (,abc,def),z in ()'],
    ['x in (def,abc,def)', 'x in (abc,def)'],
    ['x,y in (a)', 'x,y in (a)'],
    ['x==a', 'x==a'],
    ['in in (in),notin notin (notin)', 'in in (in),notin notin (notin)'],
  ])('set-based %j parses to %j (TestSetSelectorParser)', (input, canonical) => {
    expect(parseLabelSelector(input).toString()).toBe(canonical);
  });

  it('exposes requirements sorted by key with values sorted and deduplicated', () => {
    const selector = parseLabelSelector('tier notin (b,a,b),app=web,!legacy,env');
    expect(selector.requirements).toEqual([
      { key: 'app', operator: '=', values: ['web'] },
      { key: 'env', operator: 'exists', values: [] },
      { key: 'legacy', operator: '!', values: [] },
      { key: 'tier', operator: 'notin', values: ['a', 'b'] },
    ]);
  });

  it('an invalid key is reported with the nil field path Kubernetes prints', () => {
    expect(parseError('*bar').message).toBe(
      `unable to parse requirement: <nil>: Invalid value: "*bar": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
    );
  });

  it('a key with two slashes is not a qualified name', () => {
    expect(parseError('a/b/c=d').message).toBe(
      `unable to parse requirement: <nil>: Invalid value: "a/b/c": a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    );
  });

  it('an invalid value is reported at values[i][key]', () => {
    expect(parseError('app=-x').message).toBe(
      `unable to parse requirement: values[0][app]: Invalid value: "-x": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
    );
  });

  it.each([
    ['a b', "unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt"],
    ['x==a==b', "found '==', expected: ',' or 'end of string'"],
    ['x=a,', "found '', expected: identifier after ','"],
    [',x', "found ',', expected: !, identifier, or 'end of string'"],
    ['x in a', "unable to parse requirement: found 'a' expected: '('"],
    ['x in (a b)', "unable to parse requirement: found 'b', expected: ',' or ')'"],
    ['x in (=)', "unable to parse requirement: found '=', expected: ',', ')' or identifier"],
    ['x=(', "unable to parse requirement: found '(', expected: identifier"],
    ['!=x', "found '!=', expected: !, identifier, or 'end of string'"],
    [
      'x<a',
      `unable to parse requirement: values[0]: Invalid value: "a": for 'Gt', 'Lt' operators, the value must be an integer`,
    ],
  ])('%j fails with %j', (input, message) => {
    expect(parseError(input).message).toBe(message);
  });

  it('a NUL ends the input where a token would start, as Go reads it', () => {
    expect(parseLabelSelector('a \u0000 garbage').toString()).toBe('a');
  });

  it('requiresExactMatch finds =, == and single-value in', () => {
    const selector = parseLabelSelector('a=1,b==2,c in (3),d in (4,5),e!=6');
    expect(['a', 'b', 'c', 'd', 'e', 'f'].map((k) => selector.requiresExactMatch(k))).toEqual([
      '1',
      '2',
      '3',
      undefined,
      undefined,
      undefined,
    ]);
  });

  it('the empty selector is empty and matches everything', () => {
    const selector = parseLabelSelector('');
    expect(selector.isEmpty()).toBe(true);
    expect(selector.matches(undefined)).toBe(true);
    expect(selector).toBe(LabelSelector.everything());
  });

  it('gt and lt compare 64-bit integers exactly', () => {
    expect(parseLabelSelector('x>9007199254740992').matches({ x: '9007199254740993' })).toBe(true);
    expect(parseLabelSelector('x<9007199254740993').matches({ x: '9007199254740992' })).toBe(true);
  });
});

// --- properties ------------------------------------------------------------------------------

const namePart = fc.stringMatching(/^[A-Za-z0-9]([-A-Za-z0-9_.]{0,8}[A-Za-z0-9])?$/);
const dnsSubdomain = fc.stringMatching(
  /^[a-z0-9]([-a-z0-9]{0,4}[a-z0-9])?(\.[a-z0-9]([-a-z0-9]{0,4}[a-z0-9])?){0,2}$/,
);
const labelKey = fc.oneof(
  namePart,
  fc.tuple(dnsSubdomain, namePart).map(([p, n]) => `${p}/${n}`),
);
const labelValue = fc.oneof(fc.constant(''), namePart);
const intValue = fc.bigInt({ min: 0n, max: 2n ** 63n - 1n }).map(String);

const requirement: fc.Arbitrary<LabelRequirement> = fc.oneof(
  fc.record({
    key: labelKey,
    operator: fc.constantFrom<LabelSelectorOperator>('=', '==', '!='),
    values: labelValue.map((v) => [v]),
  }),
  fc.record({
    key: labelKey,
    operator: fc.constantFrom<LabelSelectorOperator>('in', 'notin'),
    values: fc.uniqueArray(labelValue, { minLength: 1, maxLength: 4 }).map((vs) => vs.sort()),
  }),
  fc.record({
    key: labelKey,
    operator: fc.constantFrom<LabelSelectorOperator>('exists', '!'),
    values: fc.constant([]),
  }),
  fc.record({
    key: labelKey,
    operator: fc.constantFrom<LabelSelectorOperator>('gt', 'lt'),
    values: intValue.map((v) => [v]),
  }),
);

const selectorAlphabet = fc.constantFrom(
  ...'ab1 =!(),<>in\tno/.-_\u0000'.split(''),
  'in',
  'notin',
  ' in (',
  '==',
  '!=',
);

function parsesOrApiError(input: string): void {
  try {
    const selector = parseLabelSelector(input);
    expect(selector).toBeInstanceOf(LabelSelector);
  } catch (err) {
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).code).toBe(400);
  }
}

describe('label selector properties', () => {
  it('any input either parses or is a 400 ApiError, never another exception', () => {
    fc.assert(fc.property(fc.string({ unit: selectorAlphabet, maxLength: 30 }), parsesOrApiError));
    fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 40 }), parsesOrApiError));
  });

  it('a selector built from requirements prints, re-parses and prints the same', () => {
    fc.assert(
      fc.property(fc.array(requirement, { maxLength: 5 }), (requirements) => {
        const selector = LabelSelector.fromRequirements(
          requirements.map((r) => newLabelRequirement(r.key, r.operator, r.values)),
        );
        const reparsed = parseLabelSelector(selector.toString());
        expect(reparsed.toString()).toBe(selector.toString());
        expect(reparsed.requirements).toEqual(selector.requirements);
      }),
    );
  });

  it('printing is canonical: whatever parses, re-parses to the same selector', () => {
    fc.assert(
      fc.property(fc.string({ unit: selectorAlphabet, maxLength: 30 }), (input) => {
        let selector: LabelSelector;
        try {
          selector = parseLabelSelector(input);
        } catch {
          return;
        }
        const again = parseLabelSelector(selector.toString());
        expect(again.requirements).toEqual(selector.requirements);
      }),
    );
  });

  it('a re-parsed selector matches exactly the label sets the original matches', () => {
    const labels = fc.dictionary(
      fc.constantFrom('a', 'b', 'x.io/a', 'n'),
      fc.constantFrom('', '1', '2', 'v'),
    );
    const key = fc.constantFrom('a', 'b', 'x.io/a', 'n');
    const value = fc.constantFrom('', '1', '2', 'v');
    const req = fc.oneof(
      fc.record({
        key,
        operator: fc.constantFrom<LabelSelectorOperator>('=', '==', '!='),
        values: value.map((v) => [v]),
      }),
      fc.record({
        key,
        operator: fc.constantFrom<LabelSelectorOperator>('in', 'notin'),
        values: fc.uniqueArray(value, { minLength: 1, maxLength: 3 }),
      }),
      fc.record({
        key,
        operator: fc.constantFrom<LabelSelectorOperator>('exists', '!'),
        values: fc.constant([]),
      }),
      fc.record({
        key,
        operator: fc.constantFrom<LabelSelectorOperator>('gt', 'lt'),
        values: fc.constantFrom('0', '1', '2').map((v) => [v]),
      }),
    );
    fc.assert(
      fc.property(fc.array(req, { maxLength: 4 }), labels, (requirements, set) => {
        const selector = LabelSelector.fromRequirements(
          requirements.map((r) => newLabelRequirement(r.key, r.operator, r.values)),
        );
        expect(parseLabelSelector(selector.toString()).matches(set)).toBe(selector.matches(set));
      }),
    );
  });

  it('a selector from a label set matches that set and any superset', () => {
    fc.assert(
      fc.property(
        fc.dictionary(labelKey, labelValue, { maxKeys: 5 }),
        fc.dictionary(labelKey, labelValue),
        (set, extra) => {
          const selector = labelSelectorFromMatchLabels(set);
          expect(selector.matches(set)).toBe(true);
          expect(selector.matches({ ...extra, ...set })).toBe(true);
        },
      ),
    );
  });
});
