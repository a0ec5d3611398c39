import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { shareUnchanged } from './shared-structure.js';

// JSON values as storage decodes them (JSON.parse of their text), `__proto__` keys included.
const decoded = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;
const json = fc.jsonValue({ maxDepth: 4 });

describe('shareUnchanged: a new version shares what did not change with the one before it', () => {
  it('encodes exactly as the new version, key order included, and modifies neither input', () => {
    fc.assert(
      fc.property(json, json, json, (common, before, after) => {
        const previous = decoded({ common, v: before });
        const next = decoded({ common, v: after });
        const [prevText, nextText] = [JSON.stringify(previous), JSON.stringify(next)];
        const shared = shareUnchanged(next, previous);
        expect(JSON.stringify(shared)).toBe(nextText);
        expect(JSON.stringify(previous)).toBe(prevText);
        expect(JSON.stringify(next)).toBe(nextText);
      }),
    );
  });

  it('an unchanged part is the previous version’s own (one copy in memory), the whole when nothing changed', () => {
    fc.assert(
      fc.property(json, json, json, (common, before, after) => {
        const previous = decoded({ common: [common], v: before });
        const shared = shareUnchanged(decoded({ common: [common], v: after }), previous);
        expect(shared.common).toBe(previous.common);
        if (JSON.stringify(before) === JSON.stringify(after)) expect(shared).toBe(previous);
        else expect(shared).not.toBe(previous);
      }),
    );
  });

  it('the same keys in another order are a change: the new order is what encodes', () => {
    const shared = shareUnchanged({ a: 1, b: 2 }, { b: 2, a: 1 });
    expect(JSON.stringify(shared)).toBe('{"a":1,"b":2}');
  });

  it('a `__proto__` key stays an own property, never the prototype', () => {
    const previous = JSON.parse('{"x":{"__proto__":{"p":1}},"y":1}') as Record<string, unknown>;
    const next = JSON.parse('{"x":{"__proto__":{"p":2}},"y":1}') as Record<string, unknown>;
    const shared = shareUnchanged(next, previous);
    expect(JSON.stringify(shared)).toBe('{"x":{"__proto__":{"p":2}},"y":1}');
    expect(Object.getPrototypeOf(shared['x'])).toBe(Object.prototype);
  });
});
