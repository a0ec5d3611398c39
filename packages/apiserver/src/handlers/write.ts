import { ApiError, type KubeObject } from '@listwatch/api';
import { applyPatch } from '../patch/apply-patch.js';
import type { JsonObject } from '../patch/json-value.js';
import { admitNamespace } from '../registry/namespace-lifecycle.js';
import { asObject, prepareForCreate, prepareForUpdate } from '../registry/strategy.js';
import { decodeBody, readBody } from './body.js';
import { interpret, isDryRun, objectKey, requireName, type RequestScope } from './request-scope.js';
import { writeObject } from './response.js';

async function body(scope: RequestScope): Promise<Buffer> {
  return readBody(scope.ctx.req, scope.server.maxRequestBodyBytes);
}

function subresourceOf(scope: RequestScope): 'status' | undefined {
  const sub = scope.info.subresource;
  if (sub === undefined) return undefined;
  if (sub === 'status' && scope.definition.subresources.includes('status')) return 'status';
  throw ApiError.notFound(scope.gr, `${scope.info.name ?? ''}/${sub}`);
}

/** POST a new object (201), after NamespaceLifecycle admission and ObjectMeta validation. */
export async function createObject(scope: RequestScope): Promise<void> {
  const { definition, server } = scope;
  if (scope.info.name !== undefined) {
    if (scope.info.subresource === 'binding' && definition.plural === 'pods')
      return bindPod(scope, scope.info.name);
    throw ApiError.methodNotAllowed(
      'the server does not allow this method on the requested resource',
    );
  }
  if (definition.namespaced && scope.namespace === undefined) {
    throw ApiError.methodNotAllowed(
      'the server does not allow this method on the requested resource',
    );
  }
  const object = prepareForCreate(
    definition,
    asObject(decodeBody(await body(scope), scope.ctx.get('content-type'))),
    scope.namespace,
  );
  const name = object.metadata.name ?? '';
  if (scope.namespace !== undefined) await admitNamespace(server.storage, scope.namespace);
  if (isDryRun(scope)) return writeObject(scope.ctx, 201, object, definition);
  const created = await server.storage
    .create(objectKey(scope, name), object)
    .catch((err: unknown) => {
      throw interpret(scope, name, err);
    });
  writeObject(scope.ctx, 201, created, definition);
}

/** Writes `compute(current)` with optimistic concurrency; a stale resourceVersion is 409. */
async function updateWith(
  scope: RequestScope,
  name: string,
  compute: (current: KubeObject) => KubeObject,
): Promise<KubeObject> {
  const key = objectKey(scope, name);
  const dryRun = isDryRun(scope);
  const tryUpdate = (current: KubeObject): KubeObject => {
    const next = compute(current);
    const expected = next.metadata.resourceVersion;
    if (
      expected !== undefined &&
      expected !== '' &&
      expected !== current.metadata.resourceVersion
    ) {
      throw ApiError.conflict(scope.gr, name);
    }
    return next;
  };
  try {
    if (dryRun) {
      const current = await scope.server.storage.get(key);
      if (!current) throw ApiError.notFound(scope.gr, name);
      return tryUpdate(current);
    }
    return await scope.server.storage.guaranteedUpdate(key, tryUpdate);
  } catch (err) {
    throw interpret(scope, name, err);
  }
}

/** PUT: replace the object (or its status). */
export async function updateObject(scope: RequestScope): Promise<void> {
  const name = requireName(scope);
  const subresource = subresourceOf(scope);
  const incoming = asObject(decodeBody(await body(scope), scope.ctx.get('content-type')));
  const updated = await updateWith(scope, name, (current) => {
    const next = prepareForUpdate(
      scope.definition,
      structuredClone(incoming),
      current,
      subresource,
    );
    next.metadata.resourceVersion = incoming.metadata.resourceVersion ?? '';
    if (next.metadata.resourceVersion === '') delete next.metadata.resourceVersion;
    return next;
  });
  writeObject(scope.ctx, 200, updated, scope.definition);
}

/** PATCH: merge, JSON or strategic merge patch applied to the current state, retried on conflict. */
export async function patchObject(scope: RequestScope): Promise<void> {
  const name = requireName(scope);
  const subresource = subresourceOf(scope);
  const patch = await body(scope);
  const contentType = scope.ctx.get('content-type');
  const { definition } = scope;
  const updated = await updateWith(scope, name, (current) => {
    const patched = applyPatch(contentType, current as unknown as JsonObject, patch, {
      group: definition.group,
      kind: definition.kind,
    }) as unknown as KubeObject;
    const requested = patched.metadata?.resourceVersion;
    const next = prepareForUpdate(definition, asObject(patched), current, subresource);
    // A resourceVersion the patch itself sets is a precondition; otherwise the read state is.
    if (requested !== undefined && requested !== current.metadata.resourceVersion)
      next.metadata.resourceVersion = requested;
    else delete next.metadata.resourceVersion;
    return next;
  });
  writeObject(scope.ctx, 200, updated, definition);
}

/**
 * POST pods/{name}/binding: the scheduler's way to assign a node (pod storage's BindingREST):
 * only once, only to a pod not being deleted.
 */
async function bindPod(scope: RequestScope, name: string): Promise<void> {
  const binding = asObject(decodeBody(await body(scope), scope.ctx.get('content-type')));
  const target = binding['target'] as { name?: unknown } | undefined;
  const node = typeof target?.name === 'string' ? target.name : '';
  if (!node) {
    throw ApiError.invalid({ kind: 'Binding' }, name, [
      { type: 'FieldValueRequired', field: 'target.name', detail: '' },
    ]);
  }
  if (binding.metadata.name !== undefined && binding.metadata.name !== name) {
    throw ApiError.badRequest(
      `the name of the object (${binding.metadata.name}) does not match the name on the URL (${name})`,
    );
  }
  await updateWith(scope, name, (current) => {
    if (current.metadata.deletionTimestamp) {
      throw ApiError.conflict(scope.gr, name, 'pod is being deleted, cannot be assigned to a host');
    }
    const spec = (current['spec'] ?? {}) as { nodeName?: string };
    if (spec.nodeName) {
      throw ApiError.conflict(
        scope.gr,
        name,
        `pod ${name} is already assigned to node "${spec.nodeName}"`,
      );
    }
    return { ...current, spec: { ...spec, nodeName: node } };
  });
  writeObject(scope.ctx, 201, {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Success',
    code: 201,
  });
}
