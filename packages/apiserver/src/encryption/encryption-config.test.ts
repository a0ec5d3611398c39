import fc from 'fast-check';
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import {
  EncryptionConfigError,
  parseEncryptionConfiguration,
  transformersByResource,
} from './encryption-config.js';

// k8s.io/apiserver pkg/server/options/encryptionconfig/config_test.go and
// pkg/apis/apiserver/validation/validation_encryption_test.go.

const config = (resources: unknown) =>
  stringify({
    apiVersion: 'apiserver.config.k8s.io/v1',
    kind: 'EncryptionConfiguration',
    resources,
  });
const aescbc = (name: string, size = 32) => ({
  aescbc: { keys: [{ name, secret: randomBytes(size).toString('base64') }] },
});

describe('parseEncryptionConfiguration', () => {
  it('accepts each provider with a key of a size it takes', () => {
    for (const provider of [
      aescbc('k', 16),
      aescbc('k', 24),
      { aesgcm: { keys: [{ name: 'k', secret: randomBytes(32).toString('base64') }] } },
      { secretbox: { keys: [{ name: 'k', secret: randomBytes(32).toString('base64') }] } },
      { identity: {} },
    ])
      expect(
        parseEncryptionConfiguration(
          config([{ resources: ['secrets'], providers: [provider] }]),
          'f',
        ),
      ).toHaveLength(1);
  });

  it.each([
    ['a key of the wrong size', [aescbc('k', 7)], 'secret is not of the expected length, got 7'],
    [
      'a secretbox key that is not 32 bytes',
      [{ secretbox: { keys: [{ name: 'k', secret: randomBytes(16).toString('base64') }] } }],
      'expected one of [32]',
    ],
    ['two providers in one entry', [{ ...aescbc('k'), identity: {} }], 'exactly one provider'],
    ['a kms provider', [{ kms: { name: 'x' } }], 'kms providers are not supported'],
    ['a key name with a colon', [aescbc('a:b')], 'key name must not contain ":"'],
    ['no keys', [{ aescbc: { keys: [] } }], 'keys must contain at least one key'],
    ['no providers', [], 'at least one provider is required'],
  ])('refuses %s', (_what, providers, message) => {
    expect(() =>
      parseEncryptionConfiguration(config([{ resources: ['secrets'], providers }]), 'f'),
    ).toThrow(message);
  });

  it('refuses another kind or apiVersion, and text that is not YAML', () => {
    expect(() => parseEncryptionConfiguration('kind: Pod', 'f')).toThrow(EncryptionConfigError);
    expect(() => parseEncryptionConfiguration('{', 'f')).toThrow('not YAML or JSON');
  });

  it('never says a key in an error', () => {
    const secret = randomBytes(31).toString('base64');
    expect(() =>
      parseEncryptionConfiguration(
        config([
          { resources: ['secrets'], providers: [{ aescbc: { keys: [{ name: 'k', secret }] } }] },
        ]),
        'f',
      ),
    ).toThrow(expect.objectContaining({ message: expect.not.stringContaining(secret) }));
  });

  it('any document is parsed or refused with an EncryptionConfigError, never another failure', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.jsonValue().map((v) => JSON.stringify(v)),
          fc.jsonValue().map((r) => config(r)),
        ),
        (text) => {
          try {
            parseEncryptionConfiguration(text, 'f');
          } catch (err) {
            expect(err).toBeInstanceOf(EncryptionConfigError);
          }
        },
      ),
    );
  });
});

describe('transformersByResource', () => {
  const rules = parseEncryptionConfiguration(
    config([
      { resources: ['secrets'], providers: [aescbc('a')] },
      { resources: ['deployments.apps'], providers: [aescbc('b')] },
      { resources: ['*.example.com'], providers: [aescbc('c')] },
      { resources: ['*.*'], providers: [{ identity: {} }] },
    ]),
    'f',
  );
  const definitions = [
    { plural: 'secrets', group: '' },
    { plural: 'deployments', group: 'apps' },
    { plural: 'configmaps', group: '' },
  ];
  const forKey = transformersByResource(rules, '/registry', definitions);

  it('gives each key the first rule naming its resource and group', () => {
    expect(forKey('/registry/secrets/ns/a')).toBe(rules[0]!.transformer);
    expect(forKey('/registry/deployments/ns/a')).toBe(rules[1]!.transformer);
    expect(forKey('/registry/example.com/foos/ns/a')).toBe(rules[2]!.transformer);
    expect(forKey('/registry/configmaps/ns/a')).toBe(rules[3]!.transformer);
  });

  it('a core resource name does not match the same plural in another group', () => {
    const only = transformersByResource(
      parseEncryptionConfiguration(
        config([{ resources: ['deployments'], providers: [aescbc('a')] }]),
        'f',
      ),
      '/registry',
      definitions,
    );
    expect(only('/registry/deployments/ns/a')).toBeUndefined();
    expect(only('/registry/secrets/ns/a')).toBeUndefined();
  });
});
