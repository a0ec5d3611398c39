import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ApiError } from './api-error.js';
import { aggregateMessage, fieldErrorMessage } from './field-error.js';
import {
  generateName,
  isDNS1035Label,
  isDNS1123Label,
  isDNS1123Subdomain,
  isQualifiedName,
  isValidLabelValue,
  isValidPathSegmentName,
  nameIsDNSLabel,
  nameIsDNSSubdomain,
  validateObjectMeta,
} from './names.js';

const SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const LABEL_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";

// Cases from k8s.io/apimachinery/pkg/util/validation/validation_test.go.
describe('DNS names (util/validation/validation.go)', () => {
  it.each([
    'a',
    'ab',
    'abc',
    'a1',
    'a-1',
    'a--1--2--b',
    '0',
    '01',
    '012',
    '1a',
    '1-a',
    '1--a--b--2',
    'a'.repeat(63),
  ])('%j is a DNS-1123 label (TestIsDNS1123Label)', (value) => {
    expect(isDNS1123Label(value)).toEqual([]);
  });

  it.each([
    '',
    'A',
    'ABC',
    'aBc',
    'A1',
    'A-1',
    '1-A',
    '-',
    'a-',
    '-a',
    '1-',
    '-1',
    '_',
    'a_',
    '_a',
    'a_b',
    '1_',
    '_1',
    '1_2',
    '.',
    'a.',
    '.a',
    'a.b',
    '1.',
    '.1',
    '1.2',
    ' ',
    'a ',
    ' a',
    'a b',
    '1 ',
    ' 1',
    '1 2',
  ])('%j is not a DNS-1123 label (TestIsDNS1123Label)', (value) => {
    expect(isDNS1123Label(value).length).toBeGreaterThan(0);
  });

  it('a label with dots that would be a subdomain is told "must not contain dots"', () => {
    expect(isDNS1123Label('a.b')).toEqual(['must not contain dots']);
    expect(isDNS1123Label('A')).toEqual([LABEL_MSG]);
  });

  it('a label of 64 characters is too long', () => {
    expect(isDNS1123Label('a'.repeat(64))).toEqual(['must be no more than 63 characters']);
  });

  it.each([
    'a',
    'a.b.c.d.e',
    'aaa.bbb.ccc',
    'a1.b-2.c--3',
    '0.a',
    '1.2.3.4',
    `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(61)}`,
  ])('%j is a DNS-1123 subdomain (TestIsDNS1123Subdomain)', (value) => {
    expect(isDNS1123Subdomain(value)).toEqual([]);
  });

  it.each(['', 'A', 'a..b', '-a', 'a-', 'a.-b', 'a_b', 'a/b', 'a b'])(
    '%j is not a DNS-1123 subdomain',
    (value) => {
      expect(isDNS1123Subdomain(value)).toEqual([SUBDOMAIN_MSG]);
    },
  );

  it('a subdomain of 254 characters is too long', () => {
    expect(isDNS1123Subdomain('a'.repeat(254))).toEqual(['must be no more than 253 characters']);
  });

  it('a DNS-1035 label must start with a letter', () => {
    expect(isDNS1035Label('abc-1')).toEqual([]);
    expect(isDNS1035Label('1abc')).toEqual([
      "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
    ]);
  });

  it('lengths count UTF-8 bytes, as Go len() does', () => {
    expect(isValidLabelValue(`${'a'.repeat(62)}é`)).toContain('must be no more than 63 characters');
    expect(isQualifiedName(`${'a'.repeat(62)}é`)[0]).toBe(
      'name part must be no more than 63 characters',
    );
  });
});

// TestIsQualifiedName / TestIsValidLabelValue.
describe('qualified names and label values', () => {
  it.each([
    'simple',
    'now-with-dashes',
    '1-starts-with-num',
    '1234',
    'simple/simple',
    'now-with-dashes/simple',
    'now-with-dashes/now-with-dashes',
    'now.with.dots/simple',
    'now-with.dashes-and.dots/simple',
    '1-num.2-num/3-num',
    '1234/5678',
    '1.2.3.4/5678',
    'Uppercase_Is_OK_123',
    'example.com/Uppercase_Is_OK_123',
    'requests.storage-foo',
    'a'.repeat(63),
    `${'a'.repeat(253)}/${'b'.repeat(63)}`,
  ])('%j is a qualified name', (value) => {
    expect(isQualifiedName(value)).toEqual([]);
  });

  it.each([
    'nospecialchars%^=@',
    'cantendwithadash-',
    '-cantstartwithadash-',
    'only/one/slash',
    'Example.com/abc',
    'example_com/abc',
    'example.com/',
    '/simple',
    'a'.repeat(64),
    `${'a'.repeat(254)}/abc`,
  ])('%j is not a qualified name', (value) => {
    expect(isQualifiedName(value).length).toBeGreaterThan(0);
  });

  it('an empty prefix and an empty name are both reported', () => {
    expect(isQualifiedName('/')).toEqual([
      'prefix part must be non-empty',
      'name part must be non-empty',
      "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
    ]);
  });

  it.each([
    'simple',
    'now-with-dashes',
    '1-starts-with-num',
    'end-with-num-1',
    '1234',
    'a'.repeat(63),
    '',
  ])('%j is a label value', (value) => {
    expect(isValidLabelValue(value)).toEqual([]);
  });

  it.each([
    'nospecialchars%^=@',
    'Tama-nui-te-rā.is.Māori.sun',
    '\\backslashes\\are\\bad',
    '-starts-with-dash',
    'ends-with-dash-',
    '.starts.with.dot',
    'ends.with.dot.',
    'a'.repeat(64),
  ])('%j is not a label value', (value) => {
    expect(isValidLabelValue(value).length).toBeGreaterThan(0);
  });
});

// k8s.io/apimachinery/pkg/api/validation/path/name.go.
describe('path segment names', () => {
  it.each([
    ['.', ["may not be '.'"]],
    ['..', ["may not be '..'"]],
    ['a/b', ["may not contain '/'"]],
    ['a%b/c', ["may not contain '/'", "may not contain '%'"]],
    ['Anything Else :)', []],
  ])('%j → %j', (name, errors) => {
    expect(isValidPathSegmentName(name)).toEqual(errors);
  });
});

// ValidateObjectMetaAccessor (k8s.io/apimachinery/pkg/api/validation/objectmeta.go).
describe('validateObjectMeta', () => {
  const namespaced = { namespaced: true, nameRule: 'dns1123Subdomain' } as const;

  it('a well-formed namespaced object has no errors', () => {
    expect(
      validateObjectMeta(
        {
          name: 'web-1',
          namespace: 'default',
          labels: { app: 'web', 'example.com/tier': '' },
          annotations: { 'Some.Key': 'x' },
        },
        namespaced,
      ),
    ).toEqual([]);
  });

  it('a missing name is "name or generateName is required"', () => {
    const errors = validateObjectMeta({ namespace: 'default' }, namespaced);
    expect(errors.map(fieldErrorMessage)).toEqual([
      'metadata.name: Required value: name or generateName is required',
    ]);
  });

  it('a bad name is reported with the DNS subdomain message', () => {
    const errors = validateObjectMeta({ name: 'Web_1', namespace: 'default' }, namespaced);
    expect(errors.map(fieldErrorMessage)).toEqual([
      `metadata.name: Invalid value: "Web_1": ${SUBDOMAIN_MSG}`,
    ]);
  });

  it('a generateName may end in "-" (maskTrailingDash) but not otherwise break the rule', () => {
    expect(
      validateObjectMeta({ generateName: 'web-', name: 'web-x7k2p', namespace: 'd' }, namespaced),
    ).toEqual([]);
    expect(nameIsDNSSubdomain('web-', true)).toEqual([]);
    expect(nameIsDNSSubdomain('web-', false)).toEqual([SUBDOMAIN_MSG]);
    expect(nameIsDNSLabel('a.b-', true)).toEqual(['must not contain dots']);
    const errors = validateObjectMeta(
      { generateName: 'Web-', name: 'x', namespace: 'd' },
      namespaced,
    );
    expect(errors.map((e) => e.field)).toEqual(['metadata.generateName']);
  });

  it('namespaced objects need a DNS-label namespace; cluster-scoped ones may not have one', () => {
    expect(validateObjectMeta({ name: 'a' }, namespaced).map(fieldErrorMessage)).toEqual([
      'metadata.namespace: Required value',
    ]);
    expect(
      validateObjectMeta({ name: 'a', namespace: 'a.b' }, namespaced).map(fieldErrorMessage),
    ).toEqual(['metadata.namespace: Invalid value: "a.b": must not contain dots']);
    expect(
      validateObjectMeta(
        { name: 'a', namespace: 'x' },
        { namespaced: false, nameRule: 'dns1123Label' },
      ).map(fieldErrorMessage),
    ).toEqual(['metadata.namespace: Forbidden: not allowed on this type']);
  });

  it('labels, annotations and their size are checked (ValidateLabels, ValidateAnnotations)', () => {
    const errors = validateObjectMeta(
      {
        name: 'a',
        namespace: 'n',
        labels: { 'bad key': 'ok', good: 'bad value' },
        annotations: { big: 'x'.repeat(256 * 1024) },
      },
      namespaced,
    );
    expect(errors.map((e) => [e.field, e.type, e.badValue])).toEqual([
      ['metadata.labels', 'FieldValueInvalid', 'bad key'],
      ['metadata.labels', 'FieldValueInvalid', 'bad value'],
      ['metadata.annotations', 'FieldValueTooLong', undefined],
    ]);
    expect(fieldErrorMessage(errors[2]!)).toBe(
      'metadata.annotations: Too long: must have at most 262144 bytes',
    );
  });

  it('the errors become one 422 Invalid with a cause each', () => {
    const errors = validateObjectMeta({ name: '-a', namespace: '' }, namespaced);
    const err = ApiError.invalid({ kind: 'ConfigMap' }, '-a', errors);
    expect(err.code).toBe(422);
    expect(err.message).toBe(`ConfigMap "-a" is invalid: ${aggregateMessage(errors)}`);
    expect(err.status.details?.causes).toHaveLength(2);
  });

  it('owner references and finalizers follow ValidateOwnerReferences and ValidateFinalizers', () => {
    const errors = validateObjectMeta(
      {
        name: 'a',
        namespace: 'n',
        ownerReferences: [
          { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'r', uid: '1', controller: true },
          { apiVersion: 'v1', kind: 'Event', name: 'e', uid: '2', controller: true },
          { apiVersion: '', kind: '', name: '', uid: '' },
        ],
        finalizers: ['orphan', 'foregroundDeletion', 'bad finalizer'],
      },
      namespaced,
    );
    expect(errors.map((e) => `${e.field}: ${e.detail ?? ''}`)).toEqual([
      'metadata.ownerReferences: /v1, Kind=Event is disallowed from being an owner',
      'metadata.ownerReferences: Only one reference can have Controller set to true. Found "true" in references for ReplicaSet/r and Event/e',
      'metadata.ownerReferences.apiVersion: version must not be empty',
      'metadata.ownerReferences.kind: must not be empty',
      'metadata.ownerReferences.name: must not be empty',
      'metadata.ownerReferences.uid: must not be empty',
      expect.stringMatching(/^metadata\.finalizers: name part must consist/),
      'metadata.finalizers: finalizer orphan and foregroundDeletion cannot be both set',
    ]);
  });

  it('pathSegment names allow anything but "/", "%", "." and ".."', () => {
    const rule = { namespaced: true, nameRule: 'pathSegment' } as const;
    expect(validateObjectMeta({ name: 'Any Name:1', namespace: 'n' }, rule)).toEqual([]);
    expect(validateObjectMeta({ name: '..', namespace: 'n' }, rule).map(fieldErrorMessage)).toEqual(
      [`metadata.name: Invalid value: "..": may not be '..'`],
    );
  });
});

describe('generateName (names.SimpleNameGenerator)', () => {
  it('appends 5 characters from the alphabet without vowels', () => {
    expect(generateName('web-')).toMatch(/^web-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
  });

  it('cuts the prefix to 58 characters so the name fits in 63', () => {
    const name = generateName('p'.repeat(100));
    expect(name).toHaveLength(63);
    expect(name.startsWith('p'.repeat(58))).toBe(true);
  });
});

describe('name properties', () => {
  const label = fc.stringMatching(/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/);

  it('any string gets a verdict (a list of reasons), never an exception', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 80 }), (value) => {
        for (const check of [
          isDNS1123Label,
          isDNS1123Subdomain,
          isDNS1035Label,
          isQualifiedName,
          isValidLabelValue,
          isValidPathSegmentName,
        ]) {
          expect(Array.isArray(check(value))).toBe(true);
        }
        expect(
          Array.isArray(
            validateObjectMeta(
              { name: value, namespace: value, labels: { [value]: value } },
              { namespaced: true, nameRule: 'dns1123Label' },
            ),
          ),
        ).toBe(true);
      }),
    );
  });

  it('every DNS label is a DNS subdomain, and dotted labels make subdomains', () => {
    fc.assert(
      fc.property(fc.array(label, { minLength: 1, maxLength: 3 }), (labels) => {
        for (const l of labels) {
          expect(isDNS1123Label(l)).toEqual([]);
          expect(isDNS1123Subdomain(l)).toEqual([]);
        }
        expect(isDNS1123Subdomain(labels.join('.'))).toEqual([]);
      }),
    );
  });

  it('a generated name from a valid generateName (up to 58 characters) is a valid name', () => {
    const shortLabel = fc.stringMatching(/^[a-z0-9]([-a-z0-9]{0,55}[a-z0-9])?$/);
    fc.assert(
      fc.property(shortLabel, fc.boolean(), (prefix, dash) => {
        const base = dash && prefix.length < 58 ? `${prefix}-` : prefix;
        expect(nameIsDNSLabel(base, true)).toEqual([]);
        expect(isDNS1123Label(generateName(base))).toEqual([]);
      }),
    );
  });
});
