import type { UnstoredCreateREST } from '../registry/generic/unstored-create-rest.js';
import { trackUpdate, updateManager } from './field-manager-params.js';
import { isDryRun, type RequestScope } from './request-scope.js';
import { writeObject } from './response.js';
import { decodeWriteBody } from './write.js';

// A create on a resource that stores nothing (the reviews): kube's createHandler
// (k8s.io/apiserver pkg/endpoints/handlers/create.go) up to the REST storage's Create
// (registry/generic/unstored-create-rest.ts), whose answer is the response, 201.

/** POST to a resource whose storage creates without storing. */
export async function createWithoutStorage(
  scope: RequestScope,
  storage: UnstoredCreateREST,
): Promise<void> {
  const dryRun = isDryRun(scope);
  const manager = updateManager(scope, 'CreateOptions');
  const decoded = await decodeWriteBody(scope, 'CreateOptions');
  const answer = await storage.create(scope.context, undefined, decoded, {
    dryRun,
    managedFields: (object) => trackUpdate(scope, undefined, object, undefined, manager),
  });
  writeObject(scope.ctx, 201, answer, scope.definition);
}
