import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { computeETag, ifNoneMatchMatches, parseIfNoneMatch } from './etag.js';

const opaque = fc.stringMatching(/^[\x21\x23-\x7e]{0,20}$/);
const entityTag = fc
  .tuple(fc.boolean(), opaque)
  .map(([weak, tag]) => ({ tag, text: `${weak ? 'W/' : ''}"${tag}"` }));

describe('entity tags', () => {
  it('are the upper-case hex SHA-512 of the body, as kube computes them', () => {
    expect(computeETag('')).toBe(
      'CF83E1357EEFB8BDF1542850D66D8007D620E4050B5715DC83F4A921D36CE9CE47D0D13C5D85F2B0FF8318D2877EEC2F63B931BD47417A81A538327AF927DA3E',
    );
    fc.assert(
      fc.property(fc.string(), (body) => {
        expect(computeETag(body)).toMatch(/^[0-9A-F]{128}$/);
      }),
    );
  });
});

describe('If-None-Match', () => {
  it('parses a list of strong and weak tags in order', () => {
    fc.assert(
      fc.property(fc.array(entityTag), fc.constantFrom(',', ', ', ' ,  '), (tags, sep) => {
        expect(parseIfNoneMatch(tags.map((t) => t.text).join(sep))).toEqual(tags.map((t) => t.tag));
      }),
    );
  });

  it('matches when any listed tag equals the ETag, weakly (RFC 9110 §13.1.2), or on *', () => {
    fc.assert(
      fc.property(fc.array(entityTag), entityTag, fc.nat(), (others, mine, at) => {
        const list = [...others];
        list.splice(at % (list.length + 1), 0, mine);
        expect(ifNoneMatchMatches(list.map((t) => t.text).join(', '), mine.tag)).toBe(true);
      }),
    );
    expect(ifNoneMatchMatches('*', 'ABC')).toBe(true);
    expect(ifNoneMatchMatches(' * ', 'ABC')).toBe(true);
  });

  it('does not match a missing header, other tags, or a tag that only contains the ETag', () => {
    expect(ifNoneMatchMatches(undefined, 'ABC')).toBe(false);
    expect(ifNoneMatchMatches('"AB", "ABCD"', 'ABC')).toBe(false);
    expect(ifNoneMatchMatches('"A"BC"', 'ABC')).toBe(false);
  });

  it('accepts a bare hash, as some clients send it', () => {
    expect(ifNoneMatchMatches('ABC', 'ABC')).toBe(true);
  });

  it('never throws and never matches what it was not given', () => {
    fc.assert(
      fc.property(fc.string(), (header) => {
        const tags = parseIfNoneMatch(header);
        if (tags !== '*') for (const tag of tags) expect(header).toContain(tag);
      }),
    );
  });
});
