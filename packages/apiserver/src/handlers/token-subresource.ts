import type { ResourceDefinition } from '@listwatch/api';
import { fieldValidationOf } from '../registry/field-validation.js';
import { checkTypeMeta } from '../registry/rest/create.js';
import { decodeTyped } from '../registry/rest/decode.js';
import { TOKEN_REQUEST_GVK } from '../registry/core/serviceaccount/token-request.js';
import type { TokenREST } from '../registry/core/serviceaccount/token.js';
import { decodeBody, readBody } from './body.js';
import { requireName, type RequestScope } from './request-scope.js';
import { writeObject } from './response.js';
import { bodyKindOf, dropUnknownBodyFields, fromInput } from './write.js';

// POST serviceaccounts/{name}/token: a TokenRequest decoded, TokenREST asked
// (registry/core/serviceaccount/token.ts), the same with a signed token answered (201).

/** The TokenRequest kind where the service account's definition is expected (type meta, schema). */
function tokenRequestDefinition(definition: ResourceDefinition): ResourceDefinition {
  return { ...definition, ...TOKEN_REQUEST_GVK, listKind: 'TokenRequestList' };
}

export async function serveTokenRequest(scope: RequestScope, storage: TokenREST): Promise<void> {
  const name = requireName(scope);
  const definition = tokenRequestDefinition(scope.definition);
  const validation = fieldValidationOf(scope.query, 'CreateOptions');
  const raw = await readBody(scope.ctx.req, scope.server.maxRequestBodyBytes);
  const request = fromInput(scope, () => {
    const value = decodeBody(raw, scope.ctx.get('content-type'));
    const object = decodeTyped(definition, value, 'body', TOKEN_REQUEST_GVK);
    checkTypeMeta(definition, object);
    return dropUnknownBodyFields(scope, bodyKindOf(definition), object, validation);
  });
  writeObject(scope.ctx, 201, await storage.create(scope.context, name, request));
}
