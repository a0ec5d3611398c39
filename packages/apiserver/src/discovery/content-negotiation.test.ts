import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { acceptsJson, negotiateDiscovery } from './content-negotiation.js';

const KUBECTL_ACCEPT =
  'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json';

const token = fc.stringMatching(/^[a-z0-9][a-z0-9.+-]{0,10}$/);
const paramValue = fc.stringMatching(/^[A-Za-z0-9.]{1,10}$/);
const mediaRange = fc.record({
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
});
type Range = typeof mediaRange extends fc.Arbitrary<infer R> ? R : never;

function print(range: Range): string {
  const params = Object.entries(range.params).map(([k, v]) => `;${k}=${v}`);
  const q = range.q === undefined ? '' : `;q=${range.q}`;
  return `${range.type}/${range.subtype}${params.join('')}${q}`;
}

describe('discovery negotiation', () => {
  it('gives kubectl 1.32 aggregated discovery v2 on /api and /apis, legacy elsewhere', () => {
    expect(negotiateDiscovery(KUBECTL_ACCEPT, { aggregated: true })).toEqual({
      form: 'aggregated',
      version: 'v2',
    });
    expect(negotiateDiscovery(KUBECTL_ACCEPT, { aggregated: false })).toEqual({ form: 'legacy' });
  });

  it('honours quality: a preferred legacy form wins over aggregated', () => {
    const accept =
      'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList;q=0.5, application/json';
    expect(negotiateDiscovery(accept, { aggregated: true })).toEqual({ form: 'legacy' });
  });

  it('skips conversions discovery cannot do (Table, unknown versions) and refuses when nothing is left', () => {
    expect(
      negotiateDiscovery('application/json;as=Table;v=v1;g=meta.k8s.io', { aggregated: true }),
    ).toBeUndefined();
    expect(
      negotiateDiscovery('application/json;g=apidiscovery.k8s.io;v=v3;as=APIGroupDiscoveryList', {
        aggregated: true,
      }),
    ).toBeUndefined();
    expect(
      negotiateDiscovery(
        'application/vnd.kubernetes.protobuf;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList',
        { aggregated: true },
      ),
    ).toBeUndefined();
    expect(
      negotiateDiscovery('application/json;as=Table;v=v1;g=meta.k8s.io, */*', {
        aggregated: false,
      }),
    ).toEqual({ form: 'legacy' });
  });

  it('serves the legacy documents in protobuf to a client that asks for it, aggregated ones never', () => {
    expect(negotiateDiscovery('application/vnd.kubernetes.protobuf', { aggregated: true })).toEqual(
      { form: 'legacy', protobuf: true },
    );
    expect(
      negotiateDiscovery(
        'application/vnd.kubernetes.protobuf;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList, application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList',
        { aggregated: true },
      ),
    ).toEqual({ form: 'aggregated', version: 'v2' });
    expect(
      negotiateDiscovery('application/vnd.kubernetes.protobuf;q=0, application/json', {
        aggregated: false,
      }),
    ).toEqual({ form: 'legacy' });
  });

  it('serves an empty Accept the legacy form, and matches ranges as NegotiateMediaTypeOptions: exact, type/* or */*, never refused (q=0)', () => {
    for (const empty of [undefined, '', '  ']) {
      expect(negotiateDiscovery(empty, { aggregated: true })).toEqual({ form: 'legacy' });
      expect(acceptsJson(empty)).toBe(true);
    }
    expect(negotiateDiscovery('application/*', { aggregated: true })).toEqual({ form: 'legacy' });
    for (const refused of ['application/json;q=0', '*/json', 'application/json;q=x']) {
      expect(negotiateDiscovery(refused, { aggregated: false })).toBeUndefined();
      expect(acceptsJson(refused)).toBe(false);
    }
  });

  it('answers any request whose Accept allows application/json with a form', () => {
    fc.assert(
      fc.property(fc.array(mediaRange, { maxLength: 4 }), fc.boolean(), (ranges, aggregated) => {
        const accept = [...ranges.map(print), 'application/json;q=0.001'].join(', ');
        expect(negotiateDiscovery(accept, { aggregated })).toBeDefined();
        expect(acceptsJson(accept)).toBe(true);
      }),
    );
  });
});
