import fc from 'fast-check';
import { ApiError } from '@listwatch/api';
import { describe, expect, it } from 'vitest';
import {
  mediaRangeSpecificity,
  mediaTypeWithGVK,
  negotiateObject,
  negotiateWatch,
  parseAccept,
  parseMediaType,
} from './negotiation.js';

// Cases follow apiserver pkg/endpoints/handlers/negotiation/negotiate_test.go and what kubectl
// (1.32) and client-go send.
const KUBECTL_GET =
  'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';
const CLIENT_GO = 'application/vnd.kubernetes.protobuf,application/json';
const METADATA_CLIENT =
  'application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json';
const AGGREGATED_DISCOVERY =
  'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json';

function notAcceptable(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    return error as ApiError;
  }
  throw new Error('expected a 406');
}

describe('parseAccept', () => {
  it('parses media ranges with parameters and q-values in preference order', () => {
    const ranges = parseAccept(
      'text/*;q=0.3, application/json;as=Table;g=meta.k8s.io;v=v1, */*;q=0.1, text/html',
    );
    expect(ranges.map((r) => `${r.type}/${r.subtype};q=${r.q}`)).toEqual([
      'application/json;q=1',
      'text/html;q=1',
      'text/*;q=0.3',
      '*/*;q=0.1',
    ]);
    expect({ ...ranges[0]!.params }).toEqual({ as: 'Table', g: 'meta.k8s.io', v: 'v1' });
  });

  it('at equal quality a specific range comes before a wildcard, otherwise header order is kept', () => {
    expect(
      parseAccept('*/*, application/*, application/cbor, application/json').map((r) => r.subtype),
    ).toEqual(['cbor', 'json', '*', '*']);
  });

  it('lower-cases types and parameter names, unquotes values, and reads a bare * as */*', () => {
    const [range] = parseAccept('Application/JSON; Charset="utf-8"');
    expect(range).toMatchObject({
      type: 'application',
      subtype: 'json',
      params: { charset: 'utf-8' },
    });
    expect(parseMediaType('*')).toMatchObject({ type: '*', subtype: '*' });
  });

  it('an unreadable q-value counts as 0, like goautoneg', () => {
    expect(parseAccept('application/json;q=high')[0]!.q).toBe(0);
  });

  it('keeps a q-value as read, out of range too, like goautoneg', () => {
    expect(parseAccept('text/plain;q=-1, application/json;q=2').map((r) => r.q)).toEqual([2, -1]);
  });

  it('never throws and drops what is not a media range', () => {
    fc.assert(
      fc.property(fc.string(), (header) => {
        for (const range of parseAccept(header)) {
          expect(range.type.length).toBeGreaterThan(0);
          expect(Number.isNaN(range.q)).toBe(false);
        }
      }),
    );
    expect(parseAccept('json, /, a/, /b, */json')).toEqual([]);
  });

  it('specificity ranks exact over type/* over */*', () => {
    const [exact, sub, any] = ['application/json', 'application/*', '*/*'].map((t) =>
      parseMediaType(t)!,
    );
    expect(mediaRangeSpecificity(exact!, 'application', 'json')).toBe(2);
    expect(mediaRangeSpecificity(sub!, 'application', 'json')).toBe(1);
    expect(mediaRangeSpecificity(any!, 'application', 'json')).toBe(0);
    expect(mediaRangeSpecificity(exact!, 'application', 'cbor')).toBe(-1);
  });

  it('detects an aggregated discovery request', () => {
    const [first] = parseAccept(AGGREGATED_DISCOVERY);
    expect(first!.params).toMatchObject({
      g: 'apidiscovery.k8s.io',
      v: 'v2',
      as: 'APIGroupDiscoveryList',
    });
    expect(
      mediaTypeWithGVK('application/json', {
        group: 'apidiscovery.k8s.io',
        version: 'v2',
        kind: 'APIGroupDiscoveryList',
      }),
    ).toBe('application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList');
  });
});

// Moved from the apiserver's discovery negotiation, which parsed Accept headers on its own.
describe('parseAccept, as discovery reads it', () => {
  const token = fc.stringMatching(/^[a-z0-9][a-z0-9.+-]{0,10}$/);
  const paramValue = fc.stringMatching(/^[A-Za-z0-9.]{1,10}$/);
  // `type/subtype`, `type/*` or `*/*`: the ranges RFC 9110 allows.
  const mediaRange = fc
    .record({
      type: fc.oneof(token, fc.constant('*')),
      subtype: fc.oneof(token, fc.constant('*')),
      params: fc.dictionary(
        token.filter((k) => k !== 'q'),
        paramValue,
        { maxKeys: 3 },
      ),
      q: fc.option(
        fc.integer({ min: 1, max: 1000 }).map((n) => n / 1000),
        { nil: undefined },
      ),
    })
    .map((r) => (r.type === '*' ? { ...r, subtype: '*' } : r));
  type Range = typeof mediaRange extends fc.Arbitrary<infer R> ? R : never;

  function print(range: Range): string {
    const params = Object.entries(range.params).map(([k, v]) => `;${k}=${v}`);
    const q = range.q === undefined ? '' : `;q=${range.q}`;
    return `${range.type}/${range.subtype}${params.join('')}${q}`;
  }

  it('reads back every range it is given, with its parameters and quality', () => {
    fc.assert(
      fc.property(fc.array(mediaRange, { minLength: 1, maxLength: 5 }), (ranges) => {
        const parsed = parseAccept(ranges.map(print).join(', '));
        expect(parsed).toHaveLength(ranges.length);
        for (const range of ranges) {
          expect(parsed).toContainEqual({
            type: range.type,
            subtype: range.subtype,
            params: range.params,
            q: range.q ?? 1,
          });
        }
      }),
    );
  });

  it('orders by quality, then specificity, then the order given', () => {
    fc.assert(
      fc.property(fc.array(mediaRange, { maxLength: 6 }), (ranges) => {
        const parsed = parseAccept(ranges.map(print).join(','));
        for (let i = 1; i < parsed.length; i++)
          expect(parsed[i - 1]!.q).toBeGreaterThanOrEqual(parsed[i]!.q);
      }),
    );
    expect(
      parseAccept('*/*, text/*, application/json;q=0.5, text/plain').map(
        (r) => `${r.type}/${r.subtype}`,
      ),
    ).toEqual(['text/plain', 'text/*', '*/*', 'application/json']);
  });

  it('keeps refused (q=0) ranges last, drops malformed ones, and reads an empty header as none', () => {
    expect(
      parseAccept('application/json;q=0, nonsense, a/b/c, text/plain;q=x').map(
        (r) => `${r.type}/${r.subtype};q=${r.q}`,
      ),
    ).toEqual(['application/json;q=0', 'text/plain;q=0']);
    expect(parseAccept(undefined)).toEqual([]);
    expect(parseAccept('  ')).toEqual([]);
  });

  it('keeps commas and semicolons inside quoted parameter values', () => {
    expect(parseAccept('application/json;profile="a,b;c";v=v1')).toEqual([
      { type: 'application', subtype: 'json', params: { profile: 'a,b;c', v: 'v1' }, q: 1 },
    ]);
  });

  it('never throws', () => {
    fc.assert(fc.property(fc.string(), (header) => void parseAccept(header)));
  });
});

describe('negotiateObject', () => {
  it("kubectl get's Accept header gets a meta.k8s.io/v1 Table as application/json", () => {
    expect(negotiateObject(KUBECTL_GET)).toMatchObject({
      encoding: 'json',
      table: true,
      as: 'Table',
      version: 'v1',
      contentType: 'application/json',
    });
  });

  it('a client asking only for a v1beta1 Table gets one', () => {
    expect(negotiateObject('application/json;as=Table;v=v1beta1;g=meta.k8s.io')).toMatchObject({
      table: true,
      version: 'v1beta1',
    });
  });

  it("client-go's protobuf-first header falls through to JSON (protobuf is not served)", () => {
    expect(negotiateObject(CLIENT_GO)).toMatchObject({
      encoding: 'json',
      table: false,
      contentType: 'application/json',
    });
  });

  it('the metadata client gets a PartialObjectMetadataList as JSON', () => {
    expect(negotiateObject(METADATA_CLIENT)).toMatchObject({
      encoding: 'json',
      table: false,
      as: 'PartialObjectMetadataList',
      version: 'v1',
    });
  });

  it('an empty or absent Accept header means JSON', () => {
    expect(negotiateObject(undefined)).toMatchObject({
      encoding: 'json',
      contentType: 'application/json',
    });
    expect(negotiateObject('')).toMatchObject({ encoding: 'json' });
  });

  it('*/* and application/* mean JSON, the first served type', () => {
    expect(negotiateObject('*/*').encoding).toBe('json');
    expect(negotiateObject('application/*').encoding).toBe('json');
  });

  it('application/cbor is served as CBOR', () => {
    expect(negotiateObject('application/cbor')).toMatchObject({
      encoding: 'cbor',
      contentType: 'application/cbor',
    });
  });

  it('q-values order the choice', () => {
    expect(negotiateObject('application/json;q=0.5, application/cbor').encoding).toBe('cbor');
  });

  it('q=0 on a type rejects it even when a wildcard would accept it', () => {
    expect(negotiateObject('application/json;q=0, */*').encoding).toBe('cbor');
    notAcceptable(() => negotiateObject('application/json;q=0, application/cbor;q=0, */*'));
  });

  it('a Table is not served as CBOR: the next clause is used', () => {
    expect(
      negotiateObject('application/cbor;as=Table;v=v1;g=meta.k8s.io, application/cbor'),
    ).toMatchObject({
      encoding: 'cbor',
      table: false,
    });
  });

  it('a Table is not offered by an endpoint without table support', () => {
    expect(negotiateObject(KUBECTL_GET, { table: false })).toMatchObject({
      table: false,
      encoding: 'json',
    });
  });

  it('a transformation to an unknown kind or group skips the clause (aggregated discovery on a resource)', () => {
    expect(negotiateObject(AGGREGATED_DISCOVERY)).toMatchObject({ table: false, encoding: 'json' });
    expect(negotiateObject(AGGREGATED_DISCOVERY).as).toBeUndefined();
    notAcceptable(() => negotiateObject('application/json;as=Table'));
  });

  it('pretty=1 asks for indented output', () => {
    expect(negotiateObject('application/json;pretty=1').pretty).toBe(true);
  });

  it('an unsupported stream schema or server version skips the clause', () => {
    notAcceptable(() => negotiateObject('application/json;stream=events'));
    notAcceptable(() => negotiateObject('application/json;sv=v2'));
  });

  it('nothing acceptable is a 406 NotAcceptable Status listing the served types', () => {
    const error = notAcceptable(() =>
      negotiateObject('application/vnd.kubernetes.protobuf, application/yaml'),
    );
    expect(error.status).toMatchObject({
      kind: 'Status',
      code: 406,
      reason: 'NotAcceptable',
      message: 'only the following media types are accepted: application/json, application/cbor',
    });
  });
});

describe('negotiateWatch', () => {
  it('a JSON watch is application/json, newline-framed', () => {
    expect(negotiateWatch(CLIENT_GO)).toMatchObject({
      encoding: 'json',
      framing: 'newline',
      contentType: 'application/json',
    });
  });

  it('a CBOR watch is application/cbor-seq, a CBOR sequence', () => {
    expect(negotiateWatch('application/cbor')).toMatchObject({
      encoding: 'cbor',
      framing: 'cbor-sequence',
      contentType: 'application/cbor-seq',
    });
    expect(negotiateWatch('application/cbor-seq').encoding).toBe('cbor');
  });

  it('stream=watch is accepted', () => {
    expect(negotiateWatch('application/json;stream=watch').encoding).toBe('json');
  });

  it('kubectl get -w gets Table events', () => {
    expect(negotiateWatch(KUBECTL_GET)).toMatchObject({ table: true, framing: 'newline' });
  });

  it('nothing acceptable is a 406 listing the stream types', () => {
    const error = notAcceptable(() =>
      negotiateWatch('application/vnd.kubernetes.protobuf;stream=watch'),
    );
    expect(error.status.message).toBe(
      'only the following media types are accepted: application/json;stream=watch, application/cbor-seq',
    );
  });
});
