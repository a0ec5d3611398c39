import { describe, expect, it } from 'vitest';
import { decodedBase64Length, isConfigMapKey } from './strategy.js';

describe('decodedBase64Length (base64.StdEncoding.Decode)', () => {
  it.each([
    ['', 0],
    ['YQ==', 1],
    ['YWI=', 2],
    ['YWJj', 3],
    ['YWJjZA==', 4],
    ['YW\nJj\r\n', 3],
    ['YQ=\n=', 1],
  ])('%j decodes to %d bytes', (text, length) => {
    expect(decodedBase64Length(text)).toBe(length);
  });

  it.each([
    ['abc', 0],
    ['a', 0],
    ['YWJjZ', 4],
    ['not base64!', 3],
    ['Y===', 1],
    ['YQ=', 3],
    ['YQ=x', 2],
    ['YQ==YQ==', 4],
    ['YWI=\nx', 5],
  ])('%j is illegal at input byte %d', (text, offset) => {
    expect(decodedBase64Length(text)).toBe(`illegal base64 data at input byte ${offset}`);
  });
});

describe('isConfigMapKey', () => {
  it('takes keys of [-._a-zA-Z0-9]+ that do not start with ..', () => {
    expect(isConfigMapKey('a.b-c_D9')).toEqual([]);
    expect(isConfigMapKey('.dot')).toEqual([]);
    expect(isConfigMapKey('..x')).toEqual(["must not start with '..'"]);
    expect(isConfigMapKey('.')).toEqual(["must not be '.'"]);
    expect(isConfigMapKey('a/b')[0]).toMatch(/^a valid config key must consist of/);
    expect(isConfigMapKey('x'.repeat(254))).toEqual(['must be no more than 253 characters']);
  });
});
