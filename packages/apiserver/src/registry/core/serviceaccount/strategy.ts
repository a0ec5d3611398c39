import type { KubeObject } from '@listwatch/api';
import type { ResourceStrategy } from '../../rest/resource-strategy.js';

// The ServiceAccount's registry strategy: pkg/registry/core/serviceaccount/strategy.go (secret
// references keep only their names).

/** cleanSecretReferences: a secret of the account is named, nothing more. */
function cleanSecretReferences(account: KubeObject): void {
  const secrets = account['secrets'];
  if (!Array.isArray(secrets)) return;
  account['secrets'] = secrets.map((secret: { name?: unknown }) =>
    typeof secret.name === 'string' && secret.name ? { name: secret.name } : {},
  );
}

export const serviceAccountStrategy: ResourceStrategy = {
  prepareForCreate: cleanSecretReferences,
  prepareForUpdate: cleanSecretReferences,
};
