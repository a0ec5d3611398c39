import { describe, expect, it } from 'vitest';
import { labelSelectorFromMatchLabels, labelSelectorFromMetaV1 } from './meta-label-selector.js';

// metav1.LabelSelectorAsSelector (k8s.io/apimachinery/pkg/apis/meta/v1/helpers.go).
describe('labelSelectorFromMetaV1', () => {
  it('a missing selector matches nothing, an empty one everything', () => {
    expect(labelSelectorFromMetaV1(undefined).matches({ a: 'b' })).toBe(false);
    expect(labelSelectorFromMetaV1(null).isEmpty()).toBe(false);
    expect(labelSelectorFromMetaV1({}).matches({ a: 'b' })).toBe(true);
    expect(labelSelectorFromMetaV1({ matchLabels: {}, matchExpressions: [] }).isEmpty()).toBe(true);
  });

  it('matchLabels and matchExpressions are AND-ed and sorted by key', () => {
    const selector = labelSelectorFromMetaV1({
      matchLabels: { tier: 'web', app: 'shop' },
      matchExpressions: [
        { key: 'env', operator: 'In', values: ['prod', 'canary'] },
        { key: 'legacy', operator: 'DoesNotExist' },
        { key: 'zone', operator: 'Exists' },
        { key: 'track', operator: 'NotIn', values: ['beta'] },
      ],
    });
    expect(selector.toString()).toBe(
      'app=shop,env in (canary,prod),!legacy,tier=web,track notin (beta),zone',
    );
    expect(selector.matches({ app: 'shop', tier: 'web', env: 'prod', zone: 'a' })).toBe(true);
    expect(selector.matches({ app: 'shop', tier: 'web', env: 'prod', zone: 'a', legacy: '' })).toBe(
      false,
    );
    expect(selector.matches({ app: 'shop', tier: 'web', env: 'dev', zone: 'a' })).toBe(false);
  });

  it('an unknown operator is a 400 naming it', () => {
    expect(() =>
      labelSelectorFromMetaV1({
        matchExpressions: [{ key: 'a', operator: 'Gt' as 'In', values: ['1'] }],
      }),
    ).toThrow('"Gt" is not a valid label selector operator');
  });

  it('In without values is a 400 worded as NewRequirement words it', () => {
    expect(() =>
      labelSelectorFromMetaV1({ matchExpressions: [{ key: 'a', operator: 'In' }] }),
    ).toThrow("values: Invalid value: []: for 'in', 'notin' operators, values set can't be empty");
  });

  it('labelSelectorFromMatchLabels validates keys and values', () => {
    expect(labelSelectorFromMatchLabels({ app: 'web' }).toString()).toBe('app=web');
    expect(() => labelSelectorFromMatchLabels({ 'bad key': 'x' })).toThrow(
      /^key: Invalid value: "bad key"/,
    );
  });
});
