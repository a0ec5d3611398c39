import { goTypes, type KubeObject } from '@listwatch/api';
import type { ResourceStrategy } from './strategy.js';

// The ServiceAccount's registry strategy: pkg/registry/core/serviceaccount/strategy.go (secret
// references keep only their names) and its fields' Go types (k8s.io/api core/v1 types.go).

const { string, bool, slice, struct } = goTypes;

const OBJECT_REFERENCE = struct('v1', 'ObjectReference', {
  kind: { type: string },
  namespace: { type: string },
  name: { type: string },
  uid: { type: string },
  apiVersion: { type: string },
  resourceVersion: { type: string },
  fieldPath: { type: string },
});

/** cleanSecretReferences: a secret of the account is named, nothing more. */
function cleanSecretReferences(account: KubeObject): void {
  const secrets = account['secrets'];
  if (!Array.isArray(secrets)) return;
  account['secrets'] = secrets.map((secret: { name?: unknown }) =>
    typeof secret.name === 'string' && secret.name ? { name: secret.name } : {},
  );
}

export const serviceAccountStrategy: ResourceStrategy = {
  fields: {
    secrets: { type: slice(OBJECT_REFERENCE) },
    imagePullSecrets: {
      type: slice(struct('v1', 'LocalObjectReference', { name: { type: string } })),
    },
    automountServiceAccountToken: { type: bool },
  },
  prepareForCreate: cleanSecretReferences,
  prepareForUpdate: cleanSecretReferences,
};
