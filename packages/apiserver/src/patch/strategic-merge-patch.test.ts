import { ApiError } from '@listwatch/api';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mergePatch } from './merge-patch.js';
import { patchSchemaFor, type PatchField, type PatchSchema } from './patch-schema.js';
import { strategicMergePatch } from './strategic-merge-patch.js';
import type { JsonObject, JsonValue } from './json-value.js';

// The MergeItem test struct of k8s.io/apimachinery/pkg/util/strategicpatch/patch_test.go.
const retainKeysMergeItem: Record<string, PatchField> = {};
const mergeItem: Record<string, PatchField> = {};
Object.assign(retainKeysMergeItem, {
  mergingIntList: { strategy: 'merge' },
  mergingList: { strategy: 'merge', mergeKey: 'name', schema: mergeItem },
  nonMergingList: { schema: mergeItem },
});
Object.assign(mergeItem, {
  mergingList: { strategy: 'merge', mergeKey: 'name', schema: mergeItem },
  nonMergingList: { schema: mergeItem },
  mergingIntList: { strategy: 'merge' },
  nonMergingIntList: {},
  mergeItemPtr: { strategy: 'merge', mergeKey: 'name', schema: mergeItem },
  simpleMap: {},
  replacingItem: { strategy: 'replace' },
  retainKeysMap: { retainKeys: true, schema: retainKeysMergeItem },
  retainKeysMergingList: {
    strategy: 'merge',
    retainKeys: true,
    mergeKey: 'name',
    schema: mergeItem,
  },
});
const MERGE_ITEM: PatchSchema = mergeItem;

function smp(original: JsonObject, patch: JsonValue, schema: PatchSchema = MERGE_ITEM): JsonObject {
  return strategicMergePatch(original, patch, schema);
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

const n = (name: number | string, rest: JsonObject = {}): JsonObject => ({ name, ...rest });

// [description, original, patch, expected] — upstream's two-way (original + twoWay = modified)
// and three-way (current + threeWay = result) applications, compared in order like upstream's
// testPatchApplication does.
const CASES: [string, JsonObject, JsonObject, JsonObject][] = [
  // customStrategicMergePatchTestCaseData
  [
    'unique scalars when merging lists',
    { mergingIntList: [1, 2] },
    { mergingIntList: [2, 3] },
    { mergingIntList: [1, 2, 3] },
  ],
  [
    'delete map from nested map',
    { simpleMap: { key1: 1, key2: 1 } },
    { simpleMap: { $patch: 'delete' } },
    { simpleMap: {} },
  ],
  [
    'delete all items from merging list',
    { mergingList: [n(1), n(2)] },
    { mergingList: [{ $patch: 'replace' }] },
    { mergingList: [] },
  ],
  ['merge empty merging lists', { mergingList: [] }, { mergingList: [] }, { mergingList: [] }],
  ['delete all keys from map', { name: 1, value: 1 }, { $patch: 'replace' }, {}],
  [
    'add key and delete all keys from map',
    { name: 1, value: 1 },
    { other: 'a', $patch: 'replace' },
    { other: 'a' },
  ],
  [
    'delete all duplicate entries in a merging list',
    { mergingList: [n(1), n(1), n(2, { value: 'a' }), n(3), n(3)] },
    { mergingList: [n(1, { $patch: 'delete' }), n(3, { $patch: 'delete' })] },
    { mergingList: [n(2, { value: 'a' })] },
  ],
  [
    'retainKeys map can add a field when no retainKeys directive present',
    { retainKeysMap: { name: 'foo' } },
    { retainKeysMap: { value: 'bar' } },
    { retainKeysMap: { name: 'foo', value: 'bar' } },
  ],
  [
    'retainKeys map can delete a field when no retainKeys directive present',
    { retainKeysMap: { name: 'foo', value: 'a' } },
    { retainKeysMap: { value: null } },
    { retainKeysMap: { name: 'foo' } },
  ],
  [
    'retainKeys map merge an empty map',
    { retainKeysMap: { name: 'foo', value: 'a' } },
    { retainKeysMap: {} },
    { retainKeysMap: { name: 'foo', value: 'a' } },
  ],
  [
    'retainKeys list can add a field when no retainKeys directive present',
    { retainKeysMergingList: [n('bar'), n('foo')] },
    { retainKeysMergingList: [n('foo', { value: 'a' })] },
    { retainKeysMergingList: [n('bar'), n('foo', { value: 'a' })] },
  ],
  [
    'preserve the order from the patch in a merging list',
    { mergingList: [n(1), n(2, { value: 'b' }), n(3)] },
    { mergingList: [n(3, { value: 'c' }), n(1, { value: 'a' }), n(2, { other: 'x' })] },
    { mergingList: [n(3, { value: 'c' }), n(1, { value: 'a' }), n(2, { value: 'b', other: 'x' })] },
  ],
  [
    'preserve the order from the patch in a merging list 2',
    { mergingList: [n(1), n(2, { value: 'b' }), n(3)] },
    { mergingList: [n(3, { value: 'c' }), n(1, { value: 'a' })] },
    { mergingList: [n(2, { value: 'b' }), n(3, { value: 'c' }), n(1, { value: 'a' })] },
  ],
  [
    'preserve the order from the patch in a merging int list',
    { mergingIntList: [1, 2, 3] },
    { mergingIntList: [3, 1, 2] },
    { mergingIntList: [3, 1, 2] },
  ],
  [
    'preserve the order from the patch in a merging int list 2',
    { mergingIntList: [1, 2, 3] },
    { mergingIntList: [3, 1] },
    { mergingIntList: [2, 3, 1] },
  ],
  // customStrategicMergePatchRawTestCases
  [
    '$setElementOrder contains item that is not present in the list to be merged',
    { mergingList: [n(1), n(3)] },
    {
      '$setElementOrder/mergingList': [n(3), n(2), n(1)],
      mergingList: [n(3, { value: 3 }), n(1, { value: 1 })],
    },
    { mergingList: [n(3, { value: 3 }), n(1, { value: 1 })] },
  ],
  [
    '$setElementOrder contains item that is not present in the int list to be merged',
    { mergingIntList: [1, 3] },
    { '$setElementOrder/mergingIntList': [3, 2, 1] },
    { mergingIntList: [3, 1] },
  ],
  [
    '$deleteFromPrimitiveList of nonexistent item in primitive list should not add the item to the list',
    { mergingIntList: [1, 2] },
    { '$deleteFromPrimitiveList/mergingIntList': [3] },
    { mergingIntList: [1, 2] },
  ],
  [
    '$deleteFromPrimitiveList on empty primitive list should not add the item to the list',
    { mergingIntList: null },
    { '$deleteFromPrimitiveList/mergingIntList': [3] },
    { mergingIntList: null },
  ],
  [
    '$deleteFromPrimitiveList on nonexistent primitive list should not add the primitive list',
    { foo: ['bar'] },
    { '$deleteFromPrimitiveList/mergingIntList': [3] },
    { foo: ['bar'] },
  ],
  [
    '$deleteFromPrimitiveList should delete item from a list with merge patch strategy',
    { mergingIntList: [1, 2, 3] },
    { '$deleteFromPrimitiveList/mergingIntList': [2] },
    { mergingIntList: [1, 3] },
  ],
  [
    '$deleteFromPrimitiveList should delete item from a list without merge patch strategy',
    { nonMergingIntList: [1, 2, 3] },
    { '$deleteFromPrimitiveList/nonMergingIntList': [2] },
    { nonMergingIntList: [1, 3] },
  ],
  // createStrategicMergePatchTestCaseData
  ['nil original', {}, { name: 1, value: 1 }, { name: 1, value: 1 }],
  [
    'nil original (three-way)',
    { name: 1, other: 'a' },
    { value: 1 },
    { name: 1, value: 1, other: 'a' },
  ],
  ['nil patch', { name: 1 }, {}, { name: 1 }],
  [
    'add field and delete field from map',
    { name: 1, other: 'a' },
    { name: null, value: 1 },
    { value: 1, other: 'a' },
  ],
  [
    'delete field from nested map',
    { simpleMap: { key1: 1, key2: 1, other: 'a' } },
    { simpleMap: { key2: null } },
    { simpleMap: { key1: 1, other: 'a' } },
  ],
  [
    'delete all fields from map with conflict',
    { name: 1, value: 'a', other: 'a' },
    { name: null, value: null },
    { other: 'a' },
  ],
  [
    'replace list of scalars',
    { nonMergingIntList: [1, 2] },
    { nonMergingIntList: [2, 3] },
    { nonMergingIntList: [2, 3] },
  ],
  [
    'delete all maps from merging list with conflict',
    { mergingList: [n(1, { other: 'a' }), n(2, { other: 'b' })] },
    { mergingList: [n(1, { $patch: 'delete' }), n(2, { $patch: 'delete' })] },
    { mergingList: [] },
  ],
  [
    'delete all maps from empty merging list',
    { mergingList: [] },
    { mergingList: [n(1, { $patch: 'delete' }), n(2, { $patch: 'delete' })] },
    { mergingList: [] },
  ],
  [
    'defined null values should propagate overwrite current fields (with conflict)',
    { name: 'a', other: 'a' },
    { name: 1, value: 1, other: null },
    { name: 1, value: 1 },
  ],
  [
    'defined null values should propagate removing original fields',
    { name: 'original-name', value: 'original-value', other: 'current-other' },
    { name: 'modified-name', value: null },
    { name: 'modified-name', other: 'current-other' },
  ],
  // strategicMergePatchRawTestCases
  [
    'nested patch merge with empty list (two-way drops the delete item)',
    { name: 'hi' },
    { mergingList: [n('hello'), { $patch: 'delete', name: 'doesntexist' }] },
    { name: 'hi', mergingList: [n('hello')] },
  ],
  [
    'nested patch merge with empty list (three-way)',
    { name: 'hi', mergingList: [n('hello2')] },
    {
      '$setElementOrder/mergingList': [n('hello'), n('doesntexist')],
      mergingList: [n('hello'), { $patch: 'delete', name: 'doesntexist' }],
    },
    { name: 'hi', mergingList: [n('hello'), n('hello2')] },
  ],
  [
    'delete items in lists of scalars',
    { mergingIntList: [1, 2, 3, 4] },
    { '$setElementOrder/mergingIntList': [1, 2], '$deleteFromPrimitiveList/mergingIntList': [3] },
    { mergingIntList: [1, 2, 4] },
  ],
  [
    'delete all duplicate items in lists of scalars',
    { mergingIntList: [1, 2, 3, 3, 4] },
    { '$setElementOrder/mergingIntList': [1, 2], '$deleteFromPrimitiveList/mergingIntList': [3] },
    { mergingIntList: [1, 2, 4] },
  ],
  [
    'add and delete items in lists of scalars',
    { mergingIntList: [1, 2, 3] },
    {
      '$setElementOrder/mergingIntList': [1, 2, 4],
      '$deleteFromPrimitiveList/mergingIntList': [3],
      mergingIntList: [4],
    },
    { mergingIntList: [1, 2, 4] },
  ],
  [
    'merge lists of maps',
    { mergingList: [n(1, { other: 'a' }), n(2, { value: 2, other: 'b' })] },
    {
      '$setElementOrder/mergingList': [n(4), n(1), n(2), n(3)],
      mergingList: [n(4, { value: 4 }), n(3, { value: 3 })],
    },
    {
      mergingList: [
        n(4, { value: 4 }),
        n(1, { other: 'a' }),
        n(2, { value: 2, other: 'b' }),
        n(3, { value: 3 }),
      ],
    },
  ],
  [
    'merge lists of maps with conflict',
    { mergingList: [n(1, { other: 'a' }), n(2, { value: 3, other: 'b' })] },
    {
      '$setElementOrder/mergingList': [n(1), n(2), n(3)],
      mergingList: [n(2, { value: 2 }), n(3, { value: 3 })],
    },
    { mergingList: [n(1, { other: 'a' }), n(2, { value: 2, other: 'b' }), n(3, { value: 3 })] },
  ],
  [
    'add field to map in merging list',
    { mergingList: [n(1, { other: 'a' }), n(2, { value: 2, other: 'b' })] },
    { '$setElementOrder/mergingList': [n(1), n(2)], mergingList: [n(1, { value: 1 })] },
    { mergingList: [n(1, { value: 1, other: 'a' }), n(2, { value: 2, other: 'b' })] },
  ],
  [
    'add field to map in merging list with conflict',
    { mergingList: [n(1, { other: 'a' }), n(3, { value: 2, other: 'b' })] },
    {
      '$setElementOrder/mergingList': [n(1), n(2)],
      mergingList: [n(1, { value: 1 }), n(2, { value: 2 })],
    },
    {
      mergingList: [
        n(1, { value: 1, other: 'a' }),
        n(2, { value: 2 }),
        n(3, { value: 2, other: 'b' }),
      ],
    },
  ],
  [
    'delete map from merging list',
    { mergingList: [n(1), n(2, { other: 'b' })] },
    { '$setElementOrder/mergingList': [n(2)], mergingList: [n(1, { $patch: 'delete' })] },
    { mergingList: [n(2, { other: 'b' })] },
  ],
  [
    'delete missing map from merging list with conflict',
    { mergingList: [n(3, { other: 'a' })] },
    { '$setElementOrder/mergingList': [n(2)], mergingList: [n(2), n(1, { $patch: 'delete' })] },
    { mergingList: [n(2), n(3, { other: 'a' })] },
  ],
  [
    'add map and delete map from merging list (order read through the shifted live list)',
    { mergingList: [n(1), n(2, { other: 'b' }), n(4, { other: 'c' })] },
    {
      '$setElementOrder/mergingList': [n(2), n(3)],
      mergingList: [n(3), n(1, { $patch: 'delete' })],
    },
    { mergingList: [n(2, { other: 'b' }), n(4, { other: 'c' }), n(3)] },
  ],
  [
    'add map and delete map from merging list with conflict (order read through the shifted live list)',
    { mergingList: [n(1, { other: 'a' }), n(4, { other: 'c' })] },
    {
      '$setElementOrder/mergingList': [n(2), n(3)],
      mergingList: [n(2), n(3), n(1, { $patch: 'delete' })],
    },
    { mergingList: [n(4, { other: 'c' }), n(2), n(3)] },
  ],
  [
    'delete field from map in merging list',
    { mergingList: [n(1, { value: 1, other: 'a' }), n(2, { value: 2, other: 'b' })] },
    { '$setElementOrder/mergingList': [n(1), n(2)], mergingList: [n(1, { value: null })] },
    { mergingList: [n(1, { other: 'a' }), n(2, { value: 2, other: 'b' })] },
  ],
  [
    'replace non merging list nested in merging list',
    {
      mergingList: [
        n(1, { other: 'a', nonMergingList: [n(1), n(2, { value: 2 })] }),
        n(2, { other: 'b' }),
      ],
    },
    {
      '$setElementOrder/mergingList': [n(1), n(2)],
      mergingList: [n(1, { nonMergingList: [n(1, { value: 1 })] })],
    },
    {
      mergingList: [
        n(1, { other: 'a', nonMergingList: [n(1, { value: 1 })] }),
        n(2, { other: 'b' }),
      ],
    },
  ],
  [
    'retainKeys map changes a field in a nested map',
    {
      retainKeysMap: { name: 'foo', value: 'bar', simpleMap: { key1: 'a', key2: 'b', key3: 'c' } },
    },
    { retainKeysMap: { $retainKeys: ['name', 'simpleMap', 'value'], simpleMap: { key1: 'x' } } },
    {
      retainKeysMap: { name: 'foo', value: 'bar', simpleMap: { key1: 'x', key2: 'b', key3: 'c' } },
    },
  ],
  [
    'retainKeys map deletes nested non-merging list with conflict',
    { retainKeysMap: { name: 'foo', nonMergingList: [n('a'), n('b'), n('c')] } },
    { retainKeysMap: { $retainKeys: ['name', 'value'], value: 'bar', nonMergingList: null } },
    { retainKeysMap: { name: 'foo', value: 'bar' } },
  ],
  [
    'retainKeys map adds an item in nested merging int list',
    { retainKeysMap: { name: 'foo', mergingIntList: [1, 2, 3] } },
    {
      retainKeysMap: {
        '$setElementOrder/mergingIntList': [1, 2, 4],
        $retainKeys: ['mergingIntList', 'name'],
        mergingIntList: [4],
      },
    },
    { retainKeysMap: { name: 'foo', mergingIntList: [1, 2, 4, 3] } },
  ],
  [
    'retainKeys map deletes an item in nested merging int list',
    { retainKeysMap: { name: 'foo', mergingIntList: [1, 2, 3, 4] } },
    {
      retainKeysMap: {
        $retainKeys: ['mergingIntList', 'name'],
        '$deleteFromPrimitiveList/mergingIntList': [2],
        '$setElementOrder/mergingIntList': [1, 3],
      },
    },
    { retainKeysMap: { name: 'foo', mergingIntList: [1, 3, 4] } },
  ],
  [
    'retainKeys map adds an item and deletes an item in nested merging int list',
    { retainKeysMap: { name: 'foo', mergingIntList: [1, 2, 3, 4] } },
    {
      retainKeysMap: {
        $retainKeys: ['mergingIntList', 'name'],
        mergingIntList: [5],
        '$deleteFromPrimitiveList/mergingIntList': [2],
        '$setElementOrder/mergingIntList': [1, 3, 5],
      },
    },
    { retainKeysMap: { name: 'foo', mergingIntList: [1, 3, 5, 4] } },
  ],
  [
    'retainKeys map deletes an item in nested merging list',
    { retainKeysMap: { name: 'foo', mergingList: [n('a'), n('b'), n('x')] } },
    {
      retainKeysMap: {
        $retainKeys: ['mergingList', 'name'],
        '$setElementOrder/mergingList': [n('a')],
        mergingList: [n('b', { $patch: 'delete' })],
      },
    },
    { retainKeysMap: { name: 'foo', mergingList: [n('a'), n('x')] } },
  ],
  [
    'retainKeys list of maps clears a field',
    { retainKeysMergingList: [n('bar'), n('foo', { value: 'a', other: 'x' })] },
    {
      '$setElementOrder/retainKeysMergingList': [n('bar'), n('foo')],
      retainKeysMergingList: [{ $retainKeys: ['name', 'value'], name: 'foo' }],
    },
    { retainKeysMergingList: [n('bar'), n('foo', { value: 'a' })] },
  ],
  // Strategies beyond the upstream tables.
  [
    'a replace-strategy map is replaced, not merged',
    { replacingItem: { a: 1, b: 2 } },
    { replacingItem: { a: 3 } },
    { replacingItem: { a: 3 } },
  ],
  [
    'a merge list behind a pointer merges by key',
    { mergeItemPtr: [n('a', { value: 1 }), n('b')] },
    { mergeItemPtr: [n('a', { value: 2 })] },
    { mergeItemPtr: [n('a', { value: 2 }), n('b')] },
  ],
  [
    '$patch: replace on a merging list keeps only the patch items',
    { mergingList: [n(1), n(2)] },
    { mergingList: [n(3, { value: 'x' }), { $patch: 'replace' }] },
    { mergingList: [n(3, { value: 'x' })] },
  ],
  [
    '$patch: replace on a nested map replaces it',
    { simpleMap: { a: '1', b: '2' }, name: 'x' },
    { simpleMap: { $patch: 'replace', c: '3' } },
    { simpleMap: { c: '3' }, name: 'x' },
  ],
  [
    'nulls in a new value are dropped',
    { name: 'x' },
    { simpleMap: { a: '1', b: null }, mergingList: [n(1, { value: null })] },
    { name: 'x', simpleMap: { a: '1' }, mergingList: [n(1)] },
  ],
  [
    'a value of another type replaces the original, without its directives',
    { mergingList: 'text' },
    { mergingList: [n(1), n(2, { $patch: 'delete' })] },
    { mergingList: [n(1)] },
  ],
  [
    'a new map carrying $patch is not added (removeDirectives)',
    { name: 'x' },
    { simpleMap: { $patch: 'replace', a: '1' } },
    { name: 'x' },
  ],
  [
    'a directive map over a scalar deletes the key',
    { simpleMap: 'text', name: 'x' },
    { simpleMap: { $patch: 'delete' } },
    { name: 'x' },
  ],
  [
    'directives inside a new list item are dropped like unknown fields',
    { mergingList: [n(1)] },
    {
      mergingList: [
        n(2, {
          mergingList: [n('a', { $patch: 'delete' })],
          '$setElementOrder/mergingList': [n('a')],
        }),
      ],
    },
    { mergingList: [n(2, { mergingList: [n('a')] }), n(1)] },
  ],
  [
    'a new merge-list item goes before the live items when no order is given',
    { mergingList: [n(1), n(2)] },
    { mergingList: [n(3)] },
    { mergingList: [n(3), n(1), n(2)] },
  ],
  [
    'a null patch value for a missing key changes nothing',
    { name: 'x' },
    { value: null },
    { name: 'x' },
  ],
];

describe('strategicMergePatch (k8s.io/apimachinery strategicpatch)', () => {
  it.each(CASES)('%s', (_description, original, patch, expected) => {
    expect(smp(original, patch)).toStrictEqual(expected);
  });

  it('does not change its inputs', () => {
    const original = { mergingList: [n(1), n(2, { other: 'b' }), n(4)] };
    const patch = {
      '$setElementOrder/mergingList': [n(2), n(3)],
      mergingList: [n(3), n(1, { $patch: 'delete' })],
    };
    const originalCopy = structuredClone(original);
    const patchCopy = structuredClone(patch);
    smp(original, patch);
    expect(original).toEqual(originalCopy);
    expect(patch).toEqual(patchCopy);
  });

  it('a null patch changes nothing', () => {
    expect(smp({ name: 'x' }, null)).toEqual({ name: 'x' });
  });

  it('a non-object patch is a 400', () => {
    const error = failure(() => smp({}, [1]));
    expect(error.code).toBe(400);
    expect(error.message).toBe(
      'json: cannot unmarshal array into Go value of type map[string]interface {}',
    );
  });

  it('a list item without its merge key is a 400 naming the map (missing merge key should error out)', () => {
    const error = failure(() =>
      smp({ mergingList: [n(1, { value: 'a' })] }, { mergingList: [{ value: 'b' }] }),
    );
    expect(error.code).toBe(400);
    expect(error.reason).toBe('BadRequest');
    expect(error.message).toBe('map: map[value:b] does not contain declared merge key: name');
  });

  it('a patch list out of $setElementOrder order is rejected (should check if order in $setElementOrder and patch list match)', () => {
    const error = failure(() =>
      smp(
        { mergingList: [n(1), n(3), n(2)] },
        {
          '$setElementOrder/mergingList': [n(1), n(2), n(3)],
          mergingList: [n(3, { value: 3 }), n(1, { value: 1 })],
        },
      ),
    );
    expect(error.code).toBe(400);
    expect(error.message).toContain("doesn't match $setElementOrder list");
  });

  it('an int list out of $setElementOrder order is rejected', () => {
    const error = failure(() =>
      smp(
        { mergingIntList: [1, 3, 2] },
        { '$setElementOrder/mergingIntList': [1, 2, 3], mergingIntList: [3, 1] },
      ),
    );
    expect(error.message).toContain("doesn't match");
  });

  it('$patch: merge on a list item is refused', () => {
    const error = failure(() =>
      smp({ mergingList: [n(1)] }, { mergingList: [n(1, { $patch: 'merge' })] }),
    );
    expect(error.code).toBe(400);
    expect(error.message).toBe('merging lists cannot yet be specified in the patch');
  });

  it('$patch: merge on a map is an unknown patch type', () => {
    const error = failure(() =>
      smp({ simpleMap: { a: '1' } }, { simpleMap: { $patch: 'merge', a: '2' } }),
    );
    expect(error.code).toBe(400);
    expect(error.message).toBe('unknown patch type: merge in map: map[$patch:merge a:2]');
  });

  it('an unknown $patch on a list item names it', () => {
    const error = failure(() =>
      smp({ mergingList: [n(1)] }, { mergingList: [n(1, { $patch: 'frob' })] }),
    );
    expect(error.message).toBe('unknown patch type: frob in map: map[$patch:frob name:1]');
  });

  it('$patch: delete on a list item needs the merge key', () => {
    const error = failure(() =>
      smp({ mergingList: [n(1)] }, { mergingList: [{ $patch: 'delete' }] }),
    );
    expect(error.message).toBe('map: map[$patch:delete] does not contain declared merge key: name');
  });

  it('lists of lists are a 422', () => {
    const error = failure(() => smp({ mergingIntList: [[1]] }, { mergingIntList: [[2]] }));
    expect(error.code).toBe(422);
    expect(error.status.details?.causes?.[0]?.message).toBe('lists of lists are not supported');
  });

  it('mixed element types in a merged list are a 400', () => {
    const error = failure(() => smp({ mergingIntList: [1] }, { mergingIntList: ['a'] }));
    expect(error.code).toBe(400);
    expect(error.message).toBe('list element types are not identical: [[1] [a]]');
  });

  it('a $retainKeys that is not a list is a 400', () => {
    const error = failure(() =>
      smp({ retainKeysMap: { name: 'a' } }, { retainKeysMap: { $retainKeys: 'name' } }),
    );
    expect(error.code).toBe(400);
    expect(error.message).toBe('invalid patch format of retainKeys');
  });

  it('a patched key missing from $retainKeys is a 400', () => {
    const error = failure(() =>
      smp(
        { retainKeysMap: { name: 'a' } },
        { retainKeysMap: { $retainKeys: ['name'], value: 'b' } },
      ),
    );
    expect(error.code).toBe(400);
    expect(error.message).toBe('invalid patch format of retainKeys');
  });

  it('a $setElementOrder key without a field is a 400', () => {
    const error = failure(() => smp({}, { $setElementOrder: [] }));
    expect(error.code).toBe(400);
    expect(error.message).toBe('invalid patch format of setElementOrder list');
  });

  it('a $deleteFromPrimitiveList key without a field is a 400', () => {
    const error = failure(() => smp({}, { $deleteFromPrimitiveListx: [1] }));
    expect(error.code).toBe(400);
    expect(error.message).toBe('invalid patch format of primitive list');
  });

  it('a $setElementOrder that is not a list is a 400', () => {
    const error = failure(() =>
      smp({ mergingIntList: [1] }, { '$setElementOrder/mergingIntList': 'x' }),
    );
    expect(error.code).toBe(400);
    expect(error.message).toBe('expected a []interface {}, but received a string');
  });
});

const POD = patchSchemaFor('Pod')!;
const NODE = patchSchemaFor('Node')!;
const SERVICE = patchSchemaFor({ group: '', kind: 'Service' })!;
const DEPLOYMENT = patchSchemaFor({ group: 'apps', kind: 'Deployment' })!;

describe('strategic merge patch on built-in kinds (k8s.io/api struct tags)', () => {
  const pod: JsonObject = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: 'web',
      finalizers: ['a', 'b'],
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'u1' }],
    },
    spec: {
      containers: [
        {
          name: 'app',
          image: 'nginx:1.25',
          env: [
            { name: 'A', value: '1' },
            { name: 'B', value: '2' },
          ],
          ports: [{ containerPort: 80, protocol: 'TCP' }],
          volumeMounts: [{ name: 'data', mountPath: '/data' }],
        },
        { name: 'sidecar', image: 'busybox' },
      ],
      tolerations: [{ key: 'a', operator: 'Exists' }],
      volumes: [{ name: 'data', emptyDir: {} }],
    },
    status: {
      conditions: [
        { type: 'Ready', status: 'False' },
        { type: 'PodScheduled', status: 'True' },
      ],
    },
  };

  it('containers merge by name and env by name inside them', () => {
    const result = strategicMergePatch(
      pod,
      {
        spec: {
          containers: [{ name: 'app', image: 'nginx:1.27', env: [{ name: 'B', value: 'two' }] }],
        },
      },
      POD,
    );
    expect(result.spec).toMatchObject({
      containers: [
        {
          name: 'app',
          image: 'nginx:1.27',
          env: [
            { name: 'A', value: '1' },
            { name: 'B', value: 'two' },
          ],
          ports: [{ containerPort: 80, protocol: 'TCP' }],
        },
        { name: 'sidecar', image: 'busybox' },
      ],
    });
  });

  it('container ports merge by containerPort and volume mounts by mountPath', () => {
    const result = strategicMergePatch(
      pod,
      {
        spec: {
          containers: [
            {
              name: 'app',
              ports: [{ containerPort: 443, protocol: 'TCP' }],
              volumeMounts: [{ mountPath: '/data', readOnly: true }],
            },
          ],
        },
      },
      POD,
    ) as { spec: { containers: JsonObject[] } };
    expect(result.spec.containers[0]).toMatchObject({
      ports: [
        { containerPort: 443, protocol: 'TCP' },
        { containerPort: 80, protocol: 'TCP' },
      ],
      volumeMounts: [{ name: 'data', mountPath: '/data', readOnly: true }],
    });
  });

  it('$patch: delete removes a container by name', () => {
    const result = strategicMergePatch(
      pod,
      { spec: { containers: [{ name: 'sidecar', $patch: 'delete' }] } },
      POD,
    ) as {
      spec: { containers: JsonObject[] };
    };
    expect(result.spec.containers.map((c) => c.name)).toEqual(['app']);
  });

  it('tolerations have no merge key: the patch list replaces them', () => {
    const result = strategicMergePatch(
      pod,
      { spec: { tolerations: [{ key: 'b', operator: 'Exists' }] } },
      POD,
    );
    expect((result.spec as JsonObject).tolerations).toEqual([{ key: 'b', operator: 'Exists' }]);
  });

  it('finalizers are a merged set: new ones first, $deleteFromPrimitiveList removes', () => {
    expect(
      (strategicMergePatch(pod, { metadata: { finalizers: ['c'] } }, POD).metadata as JsonObject)
        .finalizers,
    ).toEqual(['c', 'a', 'b']);
    const removed = strategicMergePatch(
      pod,
      { metadata: { '$deleteFromPrimitiveList/finalizers': ['a'] } },
      POD,
    );
    expect((removed.metadata as JsonObject).finalizers).toEqual(['b']);
  });

  it('ownerReferences merge by uid', () => {
    const result = strategicMergePatch(
      pod,
      {
        metadata: {
          ownerReferences: [
            { uid: 'u1', controller: true },
            { apiVersion: 'v1', kind: 'Node', name: 'n', uid: 'u2' },
          ],
        },
      },
      POD,
    );
    expect((result.metadata as JsonObject).ownerReferences).toEqual([
      { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'u1', controller: true },
      { apiVersion: 'v1', kind: 'Node', name: 'n', uid: 'u2' },
    ]);
  });

  it('status conditions merge by type (a kubelet status patch)', () => {
    const result = strategicMergePatch(
      pod,
      {
        status: {
          '$setElementOrder/conditions': [{ type: 'Ready' }, { type: 'PodScheduled' }],
          conditions: [{ type: 'Ready', status: 'True' }],
        },
      },
      POD,
    );
    expect((result.status as JsonObject).conditions).toEqual([
      { type: 'Ready', status: 'True' },
      { type: 'PodScheduled', status: 'True' },
    ]);
  });

  it('node taints have no patch strategy upstream: the patch list replaces them', () => {
    const node = {
      metadata: { name: 'n' },
      spec: { taints: [{ key: 'a', effect: 'NoSchedule' }], podCIDRs: ['10.0.0.0/24'] },
    };
    const result = strategicMergePatch(
      node,
      { spec: { taints: [{ key: 'b', effect: 'NoExecute' }], podCIDRs: ['fd00::/64'] } },
      NODE,
    );
    expect(result.spec).toEqual({
      taints: [{ key: 'b', effect: 'NoExecute' }],
      podCIDRs: ['fd00::/64', '10.0.0.0/24'],
    });
  });

  it('node addresses and conditions merge by type', () => {
    const node = {
      metadata: { name: 'n' },
      status: {
        addresses: [
          { type: 'InternalIP', address: '10.0.0.1' },
          { type: 'Hostname', address: 'n' },
        ],
      },
    };
    const result = strategicMergePatch(
      node,
      { status: { addresses: [{ type: 'InternalIP', address: '10.0.0.2' }] } },
      NODE,
    );
    expect((result.status as JsonObject).addresses).toEqual([
      { type: 'InternalIP', address: '10.0.0.2' },
      { type: 'Hostname', address: 'n' },
    ]);
  });

  it('service ports merge by port', () => {
    const service = {
      metadata: { name: 's' },
      spec: { ports: [{ port: 80, targetPort: 8080 }, { port: 443 }] },
    };
    const result = strategicMergePatch(
      service,
      { spec: { ports: [{ port: 80, targetPort: 9090 }] } },
      SERVICE,
    );
    expect((result.spec as JsonObject).ports).toEqual([
      { port: 80, targetPort: 9090 },
      { port: 443 },
    ]);
  });

  it("$retainKeys switches a Deployment's strategy from RollingUpdate to Recreate", () => {
    const deployment = {
      metadata: { name: 'd' },
      spec: {
        strategy: {
          type: 'RollingUpdate',
          rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' },
        },
      },
    };
    const result = strategicMergePatch(
      deployment,
      { spec: { strategy: { $retainKeys: ['type'], type: 'Recreate', rollingUpdate: null } } },
      DEPLOYMENT,
    );
    expect(result.spec).toEqual({ strategy: { type: 'Recreate' } });
  });

  it('a Deployment pod template merges containers by name', () => {
    const deployment = {
      metadata: { name: 'd' },
      spec: {
        template: {
          spec: {
            containers: [
              { name: 'a', image: 'x' },
              { name: 'b', image: 'y' },
            ],
          },
        },
      },
    };
    const result = strategicMergePatch(
      deployment,
      { spec: { template: { spec: { containers: [{ name: 'b', image: 'z' }] } } } },
      DEPLOYMENT,
    );
    expect(result.spec).toEqual({
      template: {
        spec: {
          containers: [
            { name: 'a', image: 'x' },
            { name: 'b', image: 'z' },
          ],
        },
      },
    });
  });

  it('unknown kinds have no schema (kube refuses strategic merge patch for them)', () => {
    expect(patchSchemaFor('Widget.example.com')).toBeUndefined();
    expect(patchSchemaFor({ group: 'apps', kind: 'Pod' })).toBeUndefined();
  });
});

describe('kubectl apply patches (CreateThreeWayMergePatch shape, kubectl 1.32)', () => {
  const lastApplied = (image: string, containers: JsonObject[]): string =>
    `${JSON.stringify({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', namespace: 'default' },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: 'web' } },
        template: {
          metadata: { labels: { app: 'web' } },
          spec: { containers: [{ name: 'web', image }, ...containers] },
        },
      },
    })}\n`;

  /** A live Deployment as the server keeps it: defaults filled in, status set. */
  function liveDeployment(containers: JsonObject[]): JsonObject {
    const defaulted = (c: JsonObject): JsonObject => ({
      ...c,
      imagePullPolicy: 'IfNotPresent',
      resources: {},
      terminationMessagePath: '/dev/termination-log',
      terminationMessagePolicy: 'File',
    });
    return {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: {
        name: 'web',
        namespace: 'default',
        uid: '7b0c',
        resourceVersion: '1001',
        generation: 1,
        annotations: {
          'deployment.kubernetes.io/revision': '1',
          'kubectl.kubernetes.io/last-applied-configuration': lastApplied('nginx:1.25', [
            { name: 'sidecar', image: 'busybox:1.36' },
          ]),
        },
      },
      spec: {
        replicas: 2,
        selector: { matchLabels: { app: 'web' } },
        strategy: {
          type: 'RollingUpdate',
          rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' },
        },
        template: {
          metadata: { labels: { app: 'web' } },
          spec: {
            containers: containers.map(defaulted),
            restartPolicy: 'Always',
            dnsPolicy: 'ClusterFirst',
          },
        },
      },
      status: { observedGeneration: 1, replicas: 2 },
    };
  }

  it('changing one container image keeps the other container, the defaults and the order', () => {
    const live = liveDeployment([
      { name: 'web', image: 'nginx:1.25' },
      { name: 'sidecar', image: 'busybox:1.36' },
    ]);
    const newLastApplied = lastApplied('nginx:1.27', [{ name: 'sidecar', image: 'busybox:1.36' }]);
    // What `kubectl apply` sends after editing spec.template.spec.containers[0].image.
    const patch = {
      metadata: {
        annotations: { 'kubectl.kubernetes.io/last-applied-configuration': newLastApplied },
      },
      spec: {
        template: {
          spec: {
            '$setElementOrder/containers': [{ name: 'web' }, { name: 'sidecar' }],
            containers: [{ image: 'nginx:1.27', name: 'web' }],
          },
        },
      },
    };
    const result = strategicMergePatch(live, patch, DEPLOYMENT);

    const expected = structuredClone(live) as {
      metadata: { annotations: Record<string, string> };
      spec: { template: { spec: { containers: JsonObject[] } } };
    };
    expected.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration'] =
      newLastApplied;
    expected.spec.template.spec.containers[0]!.image = 'nginx:1.27';
    expect(result).toStrictEqual(expected);
  });

  it('removing one container and adding another follows $setElementOrder', () => {
    const live = liveDeployment([
      { name: 'web', image: 'nginx:1.25' },
      { name: 'sidecar', image: 'busybox:1.36' },
    ]);
    const patch = {
      spec: {
        template: {
          spec: {
            '$setElementOrder/containers': [{ name: 'web' }, { name: 'logger' }],
            containers: [
              { image: 'fluent-bit:3', name: 'logger' },
              { $patch: 'delete', name: 'sidecar' },
            ],
          },
        },
      },
    };
    const result = strategicMergePatch(live, patch, DEPLOYMENT) as {
      spec: { template: { spec: { containers: JsonObject[] } } };
    };
    expect(result.spec.template.spec.containers.map((c) => [c.name, c.image])).toEqual([
      ['web', 'nginx:1.25'],
      ['logger', 'fluent-bit:3'],
    ]);
  });

  it('a container another controller injected stays where upstream puts it (before the added one)', () => {
    // Upstream deletes in place and then reads the shifted live list as the server order.
    const live = liveDeployment([
      { name: 'web', image: 'nginx:1.25' },
      { name: 'sidecar', image: 'busybox:1.36' },
      { name: 'istio-proxy', image: 'proxyv2' },
    ]);
    const patch = {
      spec: {
        template: {
          spec: {
            '$setElementOrder/containers': [{ name: 'web' }, { name: 'logger' }],
            containers: [
              { image: 'fluent-bit:3', name: 'logger' },
              { $patch: 'delete', name: 'sidecar' },
            ],
          },
        },
      },
    };
    const result = strategicMergePatch(live, patch, DEPLOYMENT) as {
      spec: { template: { spec: { containers: JsonObject[] } } };
    };
    expect(result.spec.template.spec.containers.map((c) => c.name)).toEqual([
      'web',
      'istio-proxy',
      'logger',
    ]);
  });
});

// --- properties --------------------------------------------------------------------------

const plainKey = fc
  .oneof(
    fc.constantFrom('a', 'b', 'spec', 'metadata', 'name', 'constructor'),
    fc.string({ maxLength: 4 }),
  )
  .filter((k) => !k.startsWith('$'));
const scalar = fc.oneof(fc.string({ maxLength: 5 }), fc.integer(), fc.boolean());
const anyValue: fc.Arbitrary<JsonValue> = fc.letrec<{ value: JsonValue }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    scalar,
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(plainKey, tie('value'), { maxKeys: 3 }),
  ),
})).value;
/** A patch of nested maps whose leaves are scalars or null: no lists, no directives. */
const listFreePatch: fc.Arbitrary<JsonObject> = fc.letrec<{ map: JsonObject }>((tie) => ({
  map: fc.dictionary(
    plainKey,
    fc.oneof({ depthSize: 'small' }, scalar, fc.constant(null), tie('map')),
    { maxKeys: 4 },
  ),
})).map;
const documentArb = fc.dictionary(plainKey, anyValue, { maxKeys: 5 }) as fc.Arbitrary<JsonObject>;

/** A merge list with unique names. */
const keyedList = fc
  .uniqueArray(fc.string({ minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 6 })
  .chain((names) =>
    fc.tuple(
      fc.constant(names),
      fc.array(fc.option(fc.integer(), { nil: undefined }), {
        minLength: names.length,
        maxLength: names.length,
      }),
    ),
  )
  .map(([names, values]) =>
    names.map((name, i) => (values[i] === undefined ? { name } : { name, value: values[i] })),
  );

describe('strategic merge patch properties', () => {
  it('a patch that only sets non-list fields gives the same result as a merge patch', () => {
    fc.assert(
      fc.property(
        documentArb,
        listFreePatch,
        fc.constantFrom<PatchSchema>({}, MERGE_ITEM, POD),
        (doc, patch, schema) => {
          expect(strategicMergePatch(doc, patch, schema)).toEqual(mergePatch(doc, patch));
        },
      ),
    );
  });

  it('merging one list item by key keeps the list order and is idempotent', () => {
    fc.assert(
      fc.property(keyedList, fc.nat(), fc.integer(), (list, at, value) => {
        const target = list[at % list.length]!;
        const patch = { mergingList: [{ name: target.name, value }] };
        const once = smp({ mergingList: list }, patch);
        expect((once.mergingList as JsonObject[]).map((i) => i.name)).toEqual(
          list.map((i) => i.name),
        );
        expect((once.mergingList as JsonObject[]).find((i) => i.name === target.name)).toEqual({
          name: target.name,
          value,
        });
        expect(smp(once, patch)).toEqual(once);
      }),
    );
  });

  it('$patch: delete removes exactly the keyed item', () => {
    fc.assert(
      fc.property(keyedList, fc.nat(), (list, at) => {
        const target = list[at % list.length]!;
        const result = smp(
          { mergingList: list },
          { mergingList: [{ name: target.name, $patch: 'delete' }] },
        );
        expect(result.mergingList).toEqual(list.filter((i) => i.name !== target.name));
      }),
    );
  });

  it('any JSON patch on any document either applies or fails with an ApiError', () => {
    const directiveKey = fc.constantFrom(
      '$patch',
      '$retainKeys',
      '$setElementOrder/mergingList',
      '$setElementOrder/mergingIntList',
      '$deleteFromPrimitiveList/mergingIntList',
      'mergingList',
      'mergingIntList',
      'simpleMap',
    );
    const patchValue = fc.oneof(anyValue, fc.constantFrom<JsonValue>('delete', 'replace', 'merge'));
    const patchArb = fc.dictionary(fc.oneof(directiveKey, plainKey), patchValue, { maxKeys: 4 });
    fc.assert(
      fc.property(documentArb, patchArb, (doc, patch) => {
        try {
          smp(doc, patch);
        } catch (error) {
          expect(error).toBeInstanceOf(ApiError);
        }
      }),
    );
  });
});
