import { isApiError, type KubeObject } from '@listwatch/api';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { resources } from './controllers/objects.js';
import { startTestApiServer, type TestApiServer } from './testing/test-apiserver.js';
import { Workload } from './workload.js';

let api: TestApiServer;
beforeAll(async () => {
  api = await startTestApiServer();
});
afterAll(() => api?.close());

type ConfigMap = KubeObject & { data?: { step?: string } };

const steps = async (ns: string): Promise<Record<string, string | undefined>> => {
  const list = await api.client.resource<ConfigMap>(resources.configmaps).namespace(ns).list();
  const entries: [string, string | undefined][] = list.items.map((cm) => [
    cm.metadata.name ?? '',
    cm.data?.step,
  ]);
  return Object.fromEntries(entries);
};

it('the ConfigMap workload continues after a restart where it stopped: a new one resumes after the last step, every write succeeding, even from mid-cycle', async () => {
  const ns = await api.namespace();
  const first = new Workload(api.client, ns);
  // Stopped mid-cycle: five created, two patched.
  for (let i = 0; i < 7; i++) await first.tick();
  expect(await steps(ns)).toEqual({
    'config-0': '5',
    'config-1': '6',
    'config-2': '2',
    'config-3': '3',
    'config-4': '4',
  });
  const second = new Workload(api.client, ns);
  await second.resume();
  // Step 7 onwards: patches, deletes, creates again, not a create of config-0 that exists.
  for (let i = 0; i < 15; i++) await second.tick();
  expect(await steps(ns)).toEqual({
    'config-0': '20',
    'config-1': '21',
    'config-2': '17',
    'config-3': '18',
    'config-4': '19',
  });
});

it('a workload restarted at step 0 over what a run left converges anyway: a create of one that exists patches it, a patch of one that is gone creates it', async () => {
  const ns = await api.namespace();
  const first = new Workload(api.client, ns);
  for (let i = 0; i < 5; i++) await first.tick();
  const fresh = new Workload(api.client, ns);
  const errors: unknown[] = [];
  for (let i = 0; i < 5; i++) await fresh.tick().catch((err: unknown) => errors.push(err));
  expect(errors.filter((e) => isApiError(e))).toEqual([]);
  expect(await steps(ns)).toEqual({
    'config-0': '0',
    'config-1': '1',
    'config-2': '2',
    'config-3': '3',
    'config-4': '4',
  });
});
