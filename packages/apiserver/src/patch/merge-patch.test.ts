import { ApiError } from '@listwatch/api';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createMergePatch, mergePatch } from './merge-patch.js';
import type { JsonObject, JsonValue } from './json-value.js';

function thrown(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected an ApiError');
}

// RFC 7386 appendix A plus evanphx's extra rows (gopkg.in/evanphx/json-patch merge_test.go,
// TestMergePatchRFCCases), which kube inherits.
const RFC_CASES: [string, string, string][] = [
  ['{"a":"b"}', '{"a":"c"}', '{"a":"c"}'],
  ['{"a":"b"}', '{"b":"c"}', '{"a":"b","b":"c"}'],
  ['{"a":"b"}', '{"a":null}', '{}'],
  ['{"a":"b","b":"c"}', '{"a":null}', '{"b":"c"}'],
  ['{"a":["b"]}', '{"a":"c"}', '{"a":"c"}'],
  ['{"a":"c"}', '{"a":["b"]}', '{"a":["b"]}'],
  ['{"a":{"b":"c"}}', '{"a":{"b":"d","c":null}}', '{"a":{"b":"d"}}'],
  ['{"a":[{"b":"c"}]}', '{"a":[1]}', '{"a":[1]}'],
  ['["a","b"]', '["c","d"]', '["c","d"]'],
  ['{"a":"b"}', '["c"]', '["c"]'],
  ['{"e":null}', '{"a":1}', '{"e":null,"a":1}'],
  ['[1,2]', '{"a":"b","c":null}', '{"a":"b"}'],
  ['{}', '{"a":{"bb":{"ccc":null}}}', '{"a":{"bb":{}}}'],
  // evanphx v4.12, as vendored by kube, keeps null array elements (older releases dropped them);
  // checked against `kubectl patch --local --type merge` 1.32.
  ['{"a":"foo"}', '{"b":[3,null,{"x":null}]}', '{"a":"foo","b":[3,null,{}]}'],
  ['[1,2]', '[1,null,3]', '[1,null,3]'],
  ['{"a":"b"}', '{"a":[{"z":1,"b":null}]}', '{"a":[{"z":1}]}'],
  ['{"o":{"k":1}}', '{"o":{"n":[null,{"q":null}]}}', '{"o":{"k":1,"n":[null,{}]}}'],
];

describe('mergePatch (RFC 7386 as evanphx/json-patch applies it)', () => {
  it.each(RFC_CASES)('%s patched with %s gives %s', (doc, patch, result) => {
    expect(mergePatch(JSON.parse(doc) as JsonValue, JSON.parse(patch) as JsonValue)).toEqual(
      JSON.parse(result),
    );
  });

  it('a null patch is a 400 Invalid JSON Patch (RFC would replace the document; evanphx refuses)', () => {
    const error = thrown(() => mergePatch({ a: 'foo' }, null));
    expect(error.code).toBe(400);
    expect(error.reason).toBe('BadRequest');
    expect(error.message).toBe('Invalid JSON Patch');
  });

  it('a scalar patch is a 400 Invalid JSON Patch', () => {
    expect(thrown(() => mergePatch({ a: 'foo' }, 'bar')).code).toBe(400);
    expect(thrown(() => mergePatch({ a: 'foo' }, 7)).code).toBe(400);
  });

  it('a null document cannot be patched: 400 Invalid JSON Document (kube: 500)', () => {
    const error = thrown(() => mergePatch(null, { a: 1 }));
    expect(error.code).toBe(400);
    expect(error.message).toBe('Invalid JSON Document');
  });

  it('replaces a key and keeps the others (TestMergePatchIgnoresOtherValues)', () => {
    expect(mergePatch({ title: 'hello', age: 18 }, { title: 'goodbye' })).toEqual({
      title: 'goodbye',
      age: 18,
    });
  });

  it('recurses into objects (TestMergePatchRecursesIntoObjects)', () => {
    expect(
      mergePatch({ person: { title: 'hello', age: 18 } }, { person: { title: 'goodbye' } }),
    ).toEqual({
      person: { title: 'goodbye', age: 18 },
    });
  });

  it('replaces non-objects wholesale (TestMergePatchReplacesNonObjectsWholesale)', () => {
    expect(mergePatch([1], [2])).toEqual([2]);
    expect(mergePatch({ a: 1 }, [2])).toEqual([2]);
    expect(mergePatch([1], { a: 1 })).toEqual({ a: 1 });
    expect(mergePatch({ a: 1, b: 1 }, { a: 2 })).toEqual({ a: 2, b: 1 });
  });

  it('replaces arrays wholesale, never merging their items', () => {
    const doc = { spec: { containers: [{ name: 'a', image: 'x' }, { name: 'b' }] } };
    expect(mergePatch(doc, { spec: { containers: [{ name: 'a', image: 'y' }] } })).toEqual({
      spec: { containers: [{ name: 'a', image: 'y' }] },
    });
  });

  it('a null member of the document is replaced like a missing one', () => {
    expect(mergePatch({ title: null }, { title: { foo: 'bar', gone: null } })).toEqual({
      title: { foo: 'bar' },
    });
  });

  it('an array patched over an object is inserted as sent, over anything else its objects lose null members', () => {
    expect(mergePatch({ a: { b: 1 } }, { a: [{ x: null }, null] })).toEqual({
      a: [{ x: null }, null],
    });
    expect(mergePatch({ a: 'x' }, { a: [{ x: null }, null] })).toEqual({ a: [{}, null] });
  });

  it('deletes labels with null and adds new ones (kubectl label --overwrite / label-)', () => {
    const pod = { metadata: { name: 'p', labels: { app: 'web', tier: 'fe' } } };
    expect(mergePatch(pod, { metadata: { labels: { tier: null, track: 'canary' } } })).toEqual({
      metadata: { name: 'p', labels: { app: 'web', track: 'canary' } },
    });
  });

  it('does not change its inputs', () => {
    const doc = { a: { b: 1 }, c: [1] };
    const patch = { a: { b: 2, d: null }, c: [2] };
    const docCopy = structuredClone(doc);
    const patchCopy = structuredClone(patch);
    mergePatch(doc, patch);
    expect(doc).toEqual(docCopy);
    expect(patch).toEqual(patchCopy);
  });

  it('treats __proto__ as an ordinary key', () => {
    const patch = JSON.parse('{"__proto__":{"polluted":true},"a":1}') as JsonValue;
    const result = mergePatch({}, patch) as JsonObject;
    expect(Object.hasOwn(result, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(result)).toBe(Object.prototype);
  });
});

describe('createMergePatch (evanphx CreateMergePatch)', () => {
  it('sends changed keys only (TestMergeReplaceKey)', () => {
    expect(
      createMergePatch(
        { title: 'hello', nested: { one: 1, two: 2 } },
        { title: 'goodbye', nested: { one: 2, two: 2 } },
      ),
    ).toEqual({ title: 'goodbye', nested: { one: 2 } });
  });

  it('sends a changed array whole and leaves equal arrays out (TestMergeGetArray)', () => {
    expect(
      createMergePatch(
        { title: 'hello', array: ['one', 'two'], notmatch: [1, 2, 3] },
        { title: 'hello', array: ['one', 'two', 'three'], notmatch: [1, 2, 3] },
      ),
    ).toEqual({ array: ['one', 'two', 'three'] });
  });

  it('removed keys become null (TestMergeDeleteKey)', () => {
    expect(
      createMergePatch(
        { title: 'hello', nested: { one: 1, two: 2 } },
        { title: 'hello', nested: { one: 1 } },
      ),
    ).toEqual({ nested: { two: null } });
  });

  it('an unchanged document gives an empty patch (TestMergeComplexMatch)', () => {
    const doc = {
      hello: 'world',
      t: true,
      f: false,
      n: null,
      i: 123,
      pi: 3.1416,
      a: [1, 2, 3, 4],
      nested: { n: null },
    };
    expect(createMergePatch(doc, structuredClone(doc))).toEqual({});
  });
});

// JSON without nulls: a merge patch cannot express "set to null", so the round trip is only
// defined for documents that hold none.
const key = fc.oneof(
  fc.constantFrom('a', 'b', 'c', 'metadata', 'spec', '__proto__', 'constructor'),
  fc.string({ maxLength: 4 }),
);
const nullFree: fc.Arbitrary<JsonValue> = fc.letrec<{ value: JsonValue }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.oneof(fc.string({ maxLength: 5 }), fc.integer(), fc.boolean()),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(key, tie('value'), { maxKeys: 4 }),
  ),
})).value;
const nullFreeObject = fc.dictionary(key, nullFree, { maxKeys: 5 }) as fc.Arbitrary<JsonObject>;

describe('merge patch properties', () => {
  it('applying createMergePatch(doc, target) to doc gives target', () => {
    fc.assert(
      fc.property(nullFreeObject, nullFreeObject, (doc, target) => {
        expect(mergePatch(doc, createMergePatch(doc, target))).toEqual(target);
      }),
    );
  });

  it('applying the same merge patch twice changes nothing the second time', () => {
    fc.assert(
      fc.property(nullFreeObject, nullFreeObject, (doc, patch) => {
        const once = mergePatch(doc, patch);
        expect(mergePatch(once, patch)).toEqual(once);
      }),
    );
  });

  it('an empty patch leaves any object unchanged', () => {
    fc.assert(
      fc.property(nullFreeObject, (doc) => {
        expect(mergePatch(doc, {})).toEqual(doc);
      }),
    );
  });

  it('any JSON patch value either applies or fails with an ApiError', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.jsonValue(), (doc, patch) => {
        try {
          mergePatch(doc as JsonValue, patch as JsonValue);
        } catch (error) {
          expect(error).toBeInstanceOf(ApiError);
        }
      }),
    );
  });
});
