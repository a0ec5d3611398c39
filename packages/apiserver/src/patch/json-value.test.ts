import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  cloneJson,
  getKey,
  goFormat,
  goTypeName,
  jsonEqual,
  setKey,
  type JsonObject,
  type JsonValue,
} from './json-value.js';

describe('json-value helpers', () => {
  it('goFormat prints like Go %v: maps with sorted keys, lists space-separated, nil as <nil>', () => {
    expect(goFormat({ b: 1, a: ['x', true, null] })).toBe('map[a:[x true <nil>] b:1]');
    expect(goFormat([])).toBe('[]');
    expect(goFormat(undefined)).toBe('<nil>');
  });

  it('goTypeName names the Go type an untyped decode would produce', () => {
    expect(goTypeName({})).toBe('map[string]interface {}');
    expect(goTypeName([])).toBe('[]interface {}');
    expect(goTypeName(1)).toBe('int64');
    expect(goTypeName(1.5)).toBe('float64');
    expect(goTypeName('s')).toBe('string');
    expect(goTypeName(false)).toBe('bool');
    expect(goTypeName(null)).toBe('%!s(<nil>)');
  });

  it('own-key access never reaches the prototype', () => {
    const object: JsonObject = {};
    expect(getKey(object, 'toString')).toBeUndefined();
    setKey(object, '__proto__', { polluted: true });
    expect(Object.getPrototypeOf(object)).toBe(Object.prototype);
    expect(getKey(object, '__proto__')).toEqual({ polluted: true });
  });

  it('a clone is equal to its source and shares nothing with it', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const copy = cloneJson(value as JsonValue);
        expect(jsonEqual(copy, value as JsonValue)).toBe(true);
        expect(copy).toEqual(value);
      }),
    );
  });

  it('jsonEqual ignores object key order but not array order', () => {
    expect(jsonEqual({ a: 1, b: [1, 2] }, { b: [1, 2], a: 1 })).toBe(true);
    expect(jsonEqual([1, 2], [2, 1])).toBe(false);
    expect(jsonEqual({ a: null }, {})).toBe(false);
  });
});
