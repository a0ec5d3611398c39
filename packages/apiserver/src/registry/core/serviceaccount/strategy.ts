import type * as corev1 from 'kubernetes-types/core/v1.js';
import type { ResourceStrategy } from '../../rest/resource-strategy.js';
import type { TypedObject } from '../../rest/typed-object.js';

// The ServiceAccount's registry strategy: pkg/registry/core/serviceaccount/strategy.go (secret
// references keep only their names).

/** A ServiceAccount as decoded (kubernetes-types' core/v1 ServiceAccount). */
export type ServiceAccount = TypedObject<corev1.ServiceAccount>;

/** cleanSecretReferences: a secret of the account is named, nothing more. */
function cleanSecretReferences(account: ServiceAccount): void {
  account.secrets &&= account.secrets.map((secret) => (secret.name ? { name: secret.name } : {}));
}

export const serviceAccountStrategy: ResourceStrategy<ServiceAccount> = {
  prepareForCreate: cleanSecretReferences,
  prepareForUpdate: cleanSecretReferences,
};
