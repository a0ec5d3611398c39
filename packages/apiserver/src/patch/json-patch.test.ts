import { ApiError } from '@listwatch/api';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  applyJsonPatch,
  decodeJsonPatch,
  MAX_JSON_PATCH_OPERATIONS,
  type JsonPatchOptions,
} from './json-patch.js';
import { PATCH_REJECTED_MESSAGE } from './patch-error.js';
import type { JsonObject, JsonValue } from './json-value.js';

function apply(doc: string, patch: string, options?: JsonPatchOptions): JsonValue {
  return applyJsonPatch(JSON.parse(doc) as JsonValue, JSON.parse(patch) as JsonValue, options);
}

function failure(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected an ApiError');
}

/** The engine's reason for a 422, carried as the Status's first cause. */
function cause(error: ApiError): string | undefined {
  return error.status.details?.causes?.[0]?.message;
}

const A48 = 'A'.repeat(48);
const A49 = 'A'.repeat(49);

// Ported from gopkg.in/evanphx/json-patch.v4 patch_test.go (Cases), the library kube runs.
const CASES: [string, string, string, string][] = [
  [
    'add a member',
    '{"foo":"bar"}',
    '[{"op":"add","path":"/baz","value":"qux"}]',
    '{"baz":"qux","foo":"bar"}',
  ],
  [
    'add inserts before an array index',
    '{"foo":["bar","baz"]}',
    '[{"op":"add","path":"/foo/1","value":"qux"}]',
    '{"foo":["bar","qux","baz"]}',
  ],
  [
    'add at index -1 appends (evanphx negative indices)',
    '{"foo":["bar","baz"]}',
    '[{"op":"add","path":"/foo/-1","value":"qux"}]',
    '{"foo":["bar","baz","qux"]}',
  ],
  [
    'remove a member',
    '{"baz":"qux","foo":"bar"}',
    '[{"op":"remove","path":"/baz"}]',
    '{"foo":"bar"}',
  ],
  [
    'remove an array item',
    '{"foo":["bar","qux","baz"]}',
    '[{"op":"remove","path":"/foo/1"}]',
    '{"foo":["bar","baz"]}',
  ],
  [
    'replace a member',
    '{"baz":"qux","foo":"bar"}',
    '[{"op":"replace","path":"/baz","value":"boo"}]',
    '{"baz":"boo","foo":"bar"}',
  ],
  [
    'move a member between objects',
    '{"foo":{"bar":"baz","waldo":"fred"},"qux":{"corge":"grault"}}',
    '[{"op":"move","from":"/foo/waldo","path":"/qux/thud"}]',
    '{"foo":{"bar":"baz"},"qux":{"corge":"grault","thud":"fred"}}',
  ],
  [
    'move an array item forward to the end',
    '{"foo":["all","grass","cows","eat"]}',
    '[{"op":"move","from":"/foo/1","path":"/foo/3"}]',
    '{"foo":["all","cows","eat","grass"]}',
  ],
  [
    'move an array item one slot',
    '{"foo":["all","grass","cows","eat"]}',
    '[{"op":"move","from":"/foo/1","path":"/foo/2"}]',
    '{"foo":["all","cows","grass","eat"]}',
  ],
  [
    'add a nested object',
    '{"foo":"bar"}',
    '[{"op":"add","path":"/child","value":{"grandchild":{}}}]',
    '{"foo":"bar","child":{"grandchild":{}}}',
  ],
  [
    '- appends an array as one item',
    '{"foo":["bar"]}',
    '[{"op":"add","path":"/foo/-","value":["abc","def"]}]',
    '{"foo":["bar",["abc","def"]]}',
  ],
  [
    'remove a null member',
    '{"foo":"bar","qux":{"baz":1,"bar":null}}',
    '[{"op":"remove","path":"/qux/bar"}]',
    '{"foo":"bar","qux":{"baz":1}}',
  ],
  [
    'add a null value',
    '{"foo":"bar"}',
    '[{"op":"add","path":"/baz","value":null}]',
    '{"baz":null,"foo":"bar"}',
  ],
  [
    'replace the only array item',
    '{"foo":["bar"]}',
    '[{"op":"replace","path":"/foo/0","value":"baz"}]',
    '{"foo":["baz"]}',
  ],
  [
    'replace the middle array item',
    '{"foo":["bar","qux","baz"]}',
    '[{"op":"replace","path":"/foo/1","value":"bum"}]',
    '{"foo":["bar","bum","baz"]}',
  ],
  [
    'paths walk through arrays at the root',
    '[{"foo":["bar","qux","baz"]}]',
    '[{"op":"replace","path":"/0/foo/0","value":"bum"}]',
    '[{"foo":["bum","qux","baz"]}]',
  ],
  [
    'copy an item into an array',
    '[{"foo":["bar","qux","baz"],"bar":["qux","baz"]}]',
    '[{"op":"copy","from":"/0/foo/0","path":"/0/bar/0"}]',
    '[{"foo":["bar","qux","baz"],"bar":["bar","qux","baz"]}]',
  ],
  [
    'copy a list over a member',
    '[{"foo":{"bar":["qux","baz"]},"baz":{"qux":"bum"}}]',
    '[{"op":"copy","from":"/0/foo/bar","path":"/0/baz/bar"}]',
    '[{"baz":{"bar":["qux","baz"],"qux":"bum"},"foo":{"bar":["qux","baz"]}}]',
  ],
  [
    'copy an array into itself',
    '{"foo":["bar"]}',
    '[{"op":"copy","path":"/foo/0","from":"/foo"}]',
    '{"foo":[["bar"],"bar"]}',
  ],
  [
    'remove at index -2 counts from the end',
    '{"foo":["bar","qux","baz"]}',
    '[{"op":"remove","path":"/foo/-2"}]',
    '{"foo":["bar","baz"]}',
  ],
  [
    'add at -1 into an empty array',
    '{"foo":[]}',
    '[{"op":"add","path":"/foo/-1","value":"qux"}]',
    '{"foo":["qux"]}',
  ],
  [
    'replace a null member',
    '{"bar":[{"baz":null}]}',
    '[{"op":"replace","path":"/bar/0/baz","value":1}]',
    '{"bar":[{"baz":1}]}',
  ],
  [
    'replace with null',
    '{"bar":[{"baz":1}]}',
    '[{"op":"replace","path":"/bar/0/baz","value":null}]',
    '{"bar":[{"baz":null}]}',
  ],
  [
    'replace a null array item',
    '{"bar":[null]}',
    '[{"op":"replace","path":"/bar/0","value":1}]',
    '{"bar":[1]}',
  ],
  [
    'test and replace the whole document with an empty path',
    '{"id":"0","parentID":"0"}',
    '[{"op":"test","path":"","value":{"id":"0","parentID":"0"}},{"op":"replace","path":"","value":{"id":"7","originalID":"bar","parentID":"0"}}]',
    '{"id":"7","originalID":"bar","parentID":"0"}',
  ],
  [
    '~1 and ~0 unescape to / and ~',
    '{"a/b":{"m~n":1}}',
    '[{"op":"replace","path":"/a~1b/m~0n","value":2}]',
    '{"a/b":{"m~n":2}}',
  ],
  ['~01 unescapes to ~1, not /', '{"~1":1}', '[{"op":"remove","path":"/~01"}]', '{}'],
  [
    'a pointer without a leading slash addresses the root (evanphx)',
    '{"a":{"b":1}}',
    '[{"op":"add","path":"a/c","value":2}]',
    '{"a":{"b":1},"c":2}',
  ],
  [
    'replace of a missing member adds it (evanphx v4)',
    '{"a":1}',
    '[{"op":"replace","path":"/b","value":2}]',
    '{"a":1,"b":2}',
  ],
  ['add without a value adds null', '{}', '[{"op":"add","path":"/a"}]', '{"a":null}'],
  [
    'copy from a missing member adds null (evanphx)',
    '{"a":{}}',
    '[{"op":"copy","from":"/a/x","path":"/b"}]',
    '{"a":{},"b":null}',
  ],
  ['the empty key is addressed by "/"', '{}', '[{"op":"add","path":"/","value":1}]', '{"":1}'],
  ['a null patch changes nothing', '{"a":1}', 'null', '{"a":1}'],
  [
    'operations apply in order',
    '{"a":1}',
    '[{"op":"add","path":"/b","value":{}},{"op":"add","path":"/b/c","value":[]},{"op":"add","path":"/b/c/-","value":3}]',
    '{"a":1,"b":{"c":[3]}}',
  ],
];

// evanphx BadCases with the text evanphx gives (kube puts it in a 422).
const BAD_CASES: [string, string, string, string][] = [
  [
    'add under a missing parent',
    '{"foo":"bar"}',
    '[{"op":"add","path":"/baz/bat","value":"qux"}]',
    'add operation does not apply: doc is missing path: "/baz/bat": missing value',
  ],
  [
    'remove a missing member',
    '{"a":{"b":{"d":1}}}',
    '[{"op":"remove","path":"/a/b/c"}]',
    "error in remove for path: '/a/b/c': Unable to remove nonexistent key: c: missing value",
  ],
  [
    'move a missing member',
    '{"a":{"b":{"d":1}}}',
    '[{"op":"move","from":"/a/b/c","path":"/a/b/e"}]',
    "error in move for path: 'c': Unable to remove nonexistent key: c: missing value",
  ],
  [
    'remove past the end',
    '{"a":{"b":[1]}}',
    '[{"op":"remove","path":"/a/b/1"}]',
    "error in remove for path: '/a/b/1': Unable to access invalid index: 1: invalid index referenced",
  ],
  [
    'move from past the end',
    '{"a":{"b":[1]}}',
    '[{"op":"move","from":"/a/b/1","path":"/a/b/2"}]',
    "error in move for path: '1': Unable to access invalid index: 1: invalid index referenced",
  ],
  [
    'an operation without a path',
    '{"foo":"bar"}',
    '[{"op":"add","pathz":"/baz","value":"qux"}]',
    'add operation failed to decode path: missing value',
  ],
  [
    'add to the empty path',
    '{"foo":"bar"}',
    '[{"op":"add","path":"","value":"qux"}]',
    'add operation does not apply: doc is missing path: "": missing value',
  ],
  [
    'replace past the end',
    '{"foo":["bar","baz"]}',
    '[{"op":"replace","path":"/foo/2","value":"bum"}]',
    'replace operation does not apply: doc is missing key: /foo/2: missing value',
  ],
  [
    'add before -size-1',
    '{"foo":["bar","baz"]}',
    '[{"op":"add","path":"/foo/-4","value":"bum"}]',
    "error in add for path: '/foo/-4': Unable to access invalid index: -4: invalid index referenced",
  ],
  [
    'replace under a missing parent',
    '{"name":{"foo":"bat","qux":"bum"}}',
    '[{"op":"replace","path":"/foo/bar","value":"baz"}]',
    'replace operation does not apply: doc is missing path: /foo/bar: missing value',
  ],
  [
    'add two past the end',
    '{"foo":["bar"]}',
    '[{"op":"add","path":"/foo/2","value":"bum"}]',
    "error in add for path: '/foo/2': Unable to access invalid index: 2: invalid index referenced",
  ],
  [
    'remove "-"',
    '{"foo":[]}',
    '[{"op":"remove","path":"/foo/-"}]',
    `error in remove for path: '/foo/-': strconv.Atoi: parsing "-": invalid syntax`,
  ],
  [
    'remove -1 of an empty array',
    '{"foo":[]}',
    '[{"op":"remove","path":"/foo/-1"}]',
    "error in remove for path: '/foo/-1': Unable to access invalid index: -1: invalid index referenced",
  ],
  [
    'remove -2 of a one-item array',
    '{"foo":["bar"]}',
    '[{"op":"remove","path":"/foo/-2"}]',
    "error in remove for path: '/foo/-2': Unable to access invalid index: -2: invalid index referenced",
  ],
  ['a null op', '{}', '[{"op":null,"path":""}]', 'Unexpected kind: unknown'],
  ['an unknown op', '{}', '[{"op":"frobnicate","path":"/a"}]', 'Unexpected kind: frobnicate'],
  [
    'a null path',
    '{}',
    '[{"op":"add","path":null}]',
    'add operation failed to decode path: missing value',
  ],
  [
    'a null from',
    '{}',
    '[{"op":"copy","from":null}]',
    'copy operation failed to decode from: operation, missing from field: missing value',
  ],
  [
    'copy to an index far past the end',
    '{"foo":["bar"]}',
    '[{"op":"copy","path":"/foo/6666666666","from":"/"}]',
    'error while adding value during copy: Unable to access invalid index: 6666666666: invalid index referenced',
  ],
  [
    'copy past the end',
    '{"foo":["bar"]}',
    '[{"op":"copy","path":"/foo/2","from":"/foo/0"}]',
    'error while adding value during copy: Unable to access invalid index: 2: invalid index referenced',
  ],
  [
    'move past the end',
    '{"foo":["all","grass","cows","eat"]}',
    '[{"op":"move","from":"/foo/1","path":"/foo/4"}]',
    "error in move for path: '/foo/4': Unable to access invalid index: 4: invalid index referenced",
  ],
  [
    'a non-numeric array index',
    '{"foo":[1]}',
    '[{"op":"add","path":"/foo/x","value":1}]',
    `error in add for path: '/foo/x': value was not a proper array index: 'x': strconv.Atoi: parsing "x": invalid syntax`,
  ],
  [
    'walking through a scalar',
    '{"foo":"bar"}',
    '[{"op":"add","path":"/foo/x","value":1}]',
    'add operation does not apply: doc is missing path: "/foo/x": missing value',
  ],
  [
    'walking through a null',
    '{"foo":null}',
    '[{"op":"remove","path":"/foo/x"}]',
    'remove operation does not apply: doc is missing path: "/foo/x": missing value',
  ],
  [
    'replacing the document with a scalar',
    '{}',
    '[{"op":"replace","path":"","value":1}]',
    'replace operation value must be object or array',
  ],
];

// evanphx TestCases for the test operation.
const TEST_CASES: [string, string, string, string | null][] = [
  [
    'matching values pass',
    '{"baz":"qux","foo":["a",2,"c"]}',
    '[{"op":"test","path":"/baz","value":"qux"},{"op":"test","path":"/foo/1","value":2}]',
    null,
  ],
  [
    'a different string fails',
    '{"baz":"qux"}',
    '[{"op":"test","path":"/baz","value":"bar"}]',
    '/baz',
  ],
  [
    'the first failing test names its path',
    '{"baz":"qux","foo":["a",2,"c"]}',
    '[{"op":"test","path":"/baz","value":"qux"},{"op":"test","path":"/foo/1","value":"c"}]',
    '/foo/1',
  ],
  [
    'a missing member fails against a value',
    '{"baz":"qux"}',
    '[{"op":"test","path":"/foo","value":42}]',
    '/foo',
  ],
  [
    'a missing member passes against null',
    '{"baz":"qux"}',
    '[{"op":"test","path":"/foo","value":null}]',
    null,
  ],
  [
    'a null member passes against null',
    '{"foo":null}',
    '[{"op":"test","path":"/foo","value":null}]',
    null,
  ],
  [
    'an empty object is not null',
    '{"foo":{}}',
    '[{"op":"test","path":"/foo","value":null}]',
    '/foo',
  ],
  [
    'an empty array is not null',
    '{"foo":[]}',
    '[{"op":"test","path":"/foo","value":null}]',
    '/foo',
  ],
  [
    'escaped keys are tested',
    '{"baz/foo":"qux"}',
    '[{"op":"test","path":"/baz~1foo","value":"qux"}]',
    null,
  ],
  [
    'a test without a value fails on a present member',
    '{"foo":[]}',
    '[{"op":"test","path":"/foo"}]',
    '/foo',
  ],
  [
    'objects compare regardless of key order',
    '{"a":{"x":1,"y":[1,{"z":2}]}}',
    '[{"op":"test","path":"/a","value":{"y":[1,{"z":2}],"x":1}}]',
    null,
  ],
  [
    'arrays compare in order',
    '{"a":["foo","bar"]}',
    '[{"op":"test","path":"/a","value":["bar","foo"]}]',
    '/a',
  ],
];

describe('applyJsonPatch (RFC 6902 as evanphx/json-patch v4 applies it)', () => {
  it.each(CASES)('%s', (_name, doc, patch, result) => {
    expect(apply(doc, patch)).toEqual(JSON.parse(result));
  });

  it.each(BAD_CASES)('%s is a 422 naming the failure', (_name, doc, patch, reason) => {
    const error = failure(() => apply(doc, patch));
    expect(error.code).toBe(422);
    expect(error.reason).toBe('Invalid');
    expect(error.message).toBe(PATCH_REJECTED_MESSAGE);
    expect(cause(error)).toBe(reason);
  });

  it.each(TEST_CASES)('test: %s', (_name, doc, patch, failedPath) => {
    if (failedPath === null) {
      expect(() => apply(doc, patch)).not.toThrow();
    } else {
      const error = failure(() => apply(doc, patch));
      expect(error.code).toBe(422);
      expect(cause(error)).toBe(`testing value ${failedPath} failed: test failed`);
    }
  });

  it('a failed test leaves the document unchanged (the patch is atomic)', () => {
    const doc = { a: 1 };
    expect(() =>
      applyJsonPatch(doc, [
        { op: 'replace', path: '/a', value: 42 },
        { op: 'test', path: '/a', value: 'C' },
      ]),
    ).toThrow(ApiError);
    expect(doc).toEqual({ a: 1 });
  });

  it('copies count their JSON size against the copy limit (fits at exactly the limit)', () => {
    const patch =
      '[{"op":"copy","path":"/foo/-","from":"/foo/1"},{"op":"copy","path":"/foo/-","from":"/foo/1"}]';
    expect(apply(`{"foo":["A","${A48}"]}`, patch, { maxCopyBytes: 100 })).toEqual({
      foo: ['A', A48, A48, A48],
    });
    const error = failure(() => apply(`{"foo":["A","${A49}"]}`, patch, { maxCopyBytes: 100 }));
    expect(error.code).toBe(422);
    expect(cause(error)).toBe(
      'Unable to complete the copy, the accumulated size increase of copy is 102, exceeding the limit 100',
    );
  });

  it('copies are independent of their source', () => {
    const result = apply(
      '{"a":{"b":1}}',
      '[{"op":"copy","from":"/a","path":"/c"},{"op":"replace","path":"/c/b","value":2}]',
    );
    expect(result).toEqual({ a: { b: 1 }, c: { b: 2 } });
  });

  it('does not alias the operation values it inserts', () => {
    const value = { x: 1 };
    const result = applyJsonPatch({}, [
      { op: 'add', path: '/a', value },
      { op: 'add', path: '/a/y', value: 2 },
    ]);
    expect(result).toEqual({ a: { x: 1, y: 2 } });
    expect(value).toEqual({ x: 1 });
  });

  it('kubectl scale-style replace of spec.replicas with a test on resourceVersion', () => {
    const deployment = { metadata: { name: 'web', resourceVersion: '7' }, spec: { replicas: 1 } };
    expect(
      applyJsonPatch(deployment, [
        { op: 'test', path: '/metadata/resourceVersion', value: '7' },
        { op: 'replace', path: '/spec/replicas', value: 3 },
      ]),
    ).toEqual({ metadata: { name: 'web', resourceVersion: '7' }, spec: { replicas: 3 } });
  });

  it('adding a label needs the labels map to exist first', () => {
    const pod = { metadata: { name: 'p' } };
    const error = failure(() =>
      applyJsonPatch(pod, [{ op: 'add', path: '/metadata/labels/app', value: 'web' }]),
    );
    expect(cause(error)).toBe(
      'add operation does not apply: doc is missing path: "/metadata/labels/app": missing value',
    );
    expect(
      applyJsonPatch(pod, [
        { op: 'add', path: '/metadata/labels', value: {} },
        { op: 'add', path: '/metadata/labels/app.kubernetes.io~1name', value: 'web' },
      ]),
    ).toEqual({ metadata: { name: 'p', labels: { 'app.kubernetes.io/name': 'web' } } });
  });

  it('a scalar document cannot be patched (422)', () => {
    expect(failure(() => applyJsonPatch('text', [])).code).toBe(422);
  });
});

describe('decodeJsonPatch (kube strict decode into []jsonPatchOp)', () => {
  it('a non-array patch is a 400 error decoding patch', () => {
    const error = failure(() => decodeJsonPatch({ op: 'add' }));
    expect(error.code).toBe(400);
    expect(error.message).toBe(
      'error decoding patch: json: cannot unmarshal object into Go value of type []handlers.jsonPatchOp',
    );
  });

  it('a non-object operation is a 400', () => {
    expect(failure(() => decodeJsonPatch([1])).message).toBe(
      'error decoding patch: json: cannot unmarshal number into Go value of type handlers.jsonPatchOp',
    );
  });

  it('a non-string op, path or from is a 400 naming the field', () => {
    expect(failure(() => decodeJsonPatch([{ op: 5, path: '/a' }])).message).toBe(
      'error decoding patch: json: cannot unmarshal number into Go struct field jsonPatchOp.op of type string',
    );
    expect(failure(() => decodeJsonPatch([{ op: 'add', path: ['a'] }])).message).toBe(
      'error decoding patch: json: cannot unmarshal array into Go struct field jsonPatchOp.path of type string',
    );
  });

  it(`more than ${MAX_JSON_PATCH_OPERATIONS} operations is a 413 (maxJSONPatchOperations)`, () => {
    const ops = Array.from({ length: MAX_JSON_PATCH_OPERATIONS + 1 }, () => ({
      op: 'test',
      path: '/a',
      value: 1,
    }));
    const error = failure(() => decodeJsonPatch(ops));
    expect(error.code).toBe(413);
    expect(error.reason).toBe('RequestEntityTooLarge');
    expect(error.message).toBe(
      `Request entity too large: The allowed maximum operations in a JSON patch is 10000, got ${MAX_JSON_PATCH_OPERATIONS + 1}`,
    );
  });

  it(`exactly ${MAX_JSON_PATCH_OPERATIONS} operations are accepted`, () => {
    const ops = Array.from({ length: MAX_JSON_PATCH_OPERATIONS }, (_, i) => ({
      op: 'add',
      path: `/k${i}`,
      value: i,
    }));
    const result = applyJsonPatch({}, ops) as JsonObject;
    expect(Object.keys(result)).toHaveLength(MAX_JSON_PATCH_OPERATIONS);
  });

  it('keeps an explicit null value apart from an absent one', () => {
    expect(
      decodeJsonPatch([
        { op: 'test', path: '/a', value: null },
        { op: 'test', path: '/a' },
      ]),
    ).toEqual([
      { op: 'test', path: '/a', value: null },
      { op: 'test', path: '/a' },
    ]);
  });

  it('any JSON value decodes or fails with a 400/413 ApiError', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        try {
          decodeJsonPatch(value as JsonValue);
        } catch (error) {
          expect(error).toBeInstanceOf(ApiError);
          expect([400, 413]).toContain((error as ApiError).code);
        }
      }),
    );
  });
});

// Pointers built from keys that exercise escaping, array indices and "-".
const segment = fc.oneof(
  fc.constantFrom(
    'a',
    'b',
    'spec',
    'metadata',
    '0',
    '1',
    '-',
    '-1',
    '~0',
    '~1',
    'a~1b',
    '',
    '__proto__',
  ),
  fc.string({ maxLength: 3 }),
  fc.nat({ max: 5 }).map(String),
);
const pointer = fc
  .array(segment, { maxLength: 4 })
  .map((parts) => parts.map((p) => `/${p}`).join(''));
const documents = fc.dictionary(fc.string({ maxLength: 4 }), fc.jsonValue({ maxDepth: 3 }), {
  maxKeys: 5,
});
const escape = (key: string): string => key.replace(/~/g, '~0').replace(/\//g, '~1');

describe('json patch properties', () => {
  it('random add and replace operations on random documents only ever fail with an ApiError', () => {
    const operation = fc.record({
      op: fc.constantFrom('add', 'replace'),
      path: pointer,
      value: fc.jsonValue({ maxDepth: 2 }),
    });
    fc.assert(
      fc.property(documents, fc.array(operation, { maxLength: 5 }), (doc, ops) => {
        try {
          applyJsonPatch(doc as JsonValue, ops as JsonValue);
        } catch (error) {
          expect(error).toBeInstanceOf(ApiError);
          expect((error as ApiError).code).toBe(422);
        }
      }),
    );
  });

  it('a test right after an add of the same value passes', () => {
    fc.assert(
      fc.property(
        documents,
        fc.string({ maxLength: 6 }),
        fc.jsonValue({ maxDepth: 3 }),
        (doc, key, value) => {
          const path = `/${escape(key)}`;
          const patch = [
            { op: 'add', path, value },
            { op: 'test', path, value },
          ] as JsonValue;
          const result = applyJsonPatch(doc as JsonValue, patch) as JsonObject;
          expect(result[key]).toEqual(value);
        },
      ),
    );
  });

  it('a test right after an add into an array passes', () => {
    fc.assert(
      fc.property(
        fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 5 }),
        fc.nat(),
        fc.jsonValue({ maxDepth: 2 }),
        (items, at, value) => {
          const index = at % (items.length + 1);
          const patch = [
            { op: 'add', path: `/list/${index}`, value },
            { op: 'test', path: `/list/${index}`, value },
          ] as JsonValue;
          expect(() => applyJsonPatch({ list: items as JsonValue[] }, patch)).not.toThrow();
        },
      ),
    );
  });

  it('adding a new member and removing it again gives back the document', () => {
    fc.assert(
      fc.property(
        documents,
        fc.string({ maxLength: 6 }),
        fc.jsonValue({ maxDepth: 2 }),
        (doc, key, value) => {
          fc.pre(!Object.hasOwn(doc, key));
          const path = `/${escape(key)}`;
          const patch = [
            { op: 'add', path, value },
            { op: 'remove', path },
          ] as JsonValue;
          expect(applyJsonPatch(doc as JsonValue, patch)).toEqual(doc);
        },
      ),
    );
  });
});
