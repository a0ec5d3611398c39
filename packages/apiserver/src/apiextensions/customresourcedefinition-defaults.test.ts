import { describe, expect, it } from 'vitest';
import { setCustomResourceDefinitionDefaults } from './customresourcedefinition-defaults.js';

describe('CustomResourceDefinition v1 defaulting (apiextensions v1 defaults.go)', () => {
  it('fills singular, listKind, conversion None and the stored version; a webhook service port is 443', () => {
    const crd: Record<string, unknown> = {
      spec: {
        names: { plural: 'widgets', kind: 'Widget' },
        versions: [
          { name: 'v1beta1', storage: false },
          { name: 'v1', storage: true },
        ],
      },
    };
    setCustomResourceDefinitionDefaults(crd);
    expect(crd).toEqual({
      spec: {
        names: { plural: 'widgets', kind: 'Widget', singular: 'widget', listKind: 'WidgetList' },
        versions: [
          { name: 'v1beta1', storage: false },
          { name: 'v1', storage: true },
        ],
        conversion: { strategy: 'None' },
      },
      status: { storedVersions: ['v1'] },
    });
    const webhook: Record<string, unknown> = {
      spec: {
        names: { kind: 'X', singular: 'ex', listKind: 'Xs' },
        conversion: { strategy: 'Webhook', webhook: { clientConfig: { service: { name: 's' } } } },
      },
    };
    setCustomResourceDefinitionDefaults(webhook);
    expect(webhook['spec']).toEqual({
      names: { kind: 'X', singular: 'ex', listKind: 'Xs' },
      conversion: {
        strategy: 'Webhook',
        webhook: { clientConfig: { service: { name: 's', port: 443 } } },
      },
    });
  });

  it('leaves listKind empty without a kind, so validation still answers Required for both', () => {
    const crd: Record<string, unknown> = { spec: { names: { plural: 'x' } } };
    setCustomResourceDefinitionDefaults(crd);
    expect(crd['spec']).toMatchObject({ names: { plural: 'x', singular: '' } });
    expect((crd['spec'] as { names: object }).names).not.toHaveProperty('listKind');
  });
});
