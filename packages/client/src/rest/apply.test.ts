import { ApiError, findBuiltinResource, type KubeObject } from '@listwatch/api';
import type { RunningApiServer } from '@listwatch/apiserver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RestClient } from './client.js';
import { startTestApiServer } from '../testing/apiserver.js';

// ResourceClient.apply against a real apiserver: client-go's Apply / ApplyStatus
// (dynamic client, ApplyOptions with FieldManager and Force).

describe('ResourceClient.apply (server-side apply)', () => {
  let apiserver: RunningApiServer;
  let client: RestClient;
  beforeAll(async () => {
    apiserver = await startTestApiServer();
    client = new RestClient({ server: apiserver.url });
  });
  afterAll(async () => {
    await apiserver.close();
  });

  const cms = () => client.resource(findBuiltinResource('configmaps')!).namespace('default');
  const config = (data: Record<string, string>) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'applied' },
    data,
  });

  it('creates, then updates, the object; fields are owned by the field manager', async () => {
    const created = await cms().apply(config({ a: '1' }), { fieldManager: 'client-test' });
    expect(created.metadata.uid).toBeTruthy();
    const updated = await cms().apply(config({ a: '2' }), { fieldManager: 'client-test' });
    expect((updated as KubeObject & { data: unknown }).data).toEqual({ a: '2' });
    expect(updated.metadata.managedFields).toMatchObject([
      { manager: 'client-test', operation: 'Apply', fieldsV1: { 'f:data': { 'f:a': {} } } },
    ]);
  });

  it('a conflicting apply is a 409 ApiError; force takes the field over', async () => {
    const conflict = await cms()
      .apply(config({ a: 'other' }), { fieldManager: 'someone-else' })
      .catch((e: unknown) => e);
    expect(conflict).toBeInstanceOf(ApiError);
    expect((conflict as ApiError).code).toBe(409);
    const forced = await cms().apply(config({ a: 'other' }), {
      fieldManager: 'someone-else',
      force: true,
    });
    expect((forced as KubeObject & { data: unknown }).data).toEqual({ a: 'other' });
  });

  it('a dry run answers without writing', async () => {
    const before = await cms().get('applied');
    const dry = await cms().apply(config({ a: 'dry' }), {
      fieldManager: 'someone-else',
      dryRun: true,
    });
    expect((dry as KubeObject & { data: unknown }).data).toEqual({ a: 'dry' });
    expect((await cms().get('applied')).metadata.resourceVersion).toBe(
      before.metadata.resourceVersion,
    );
  });
});
