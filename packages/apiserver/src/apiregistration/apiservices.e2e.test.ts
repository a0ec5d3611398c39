import { describe, expect, it } from 'vitest';
import { e2eForFile, tableRow } from '../e2e/e2e.test-helper.js';
import type { APIService } from './types.js';

// apiregistration.k8s.io/v1 APIServices with the real kubectl, as kube-aggregator serves them:
// a local APIService per served group version (autoregister, crdregistration), Available
// `Local`; a user's APIService naming a Service, unavailable with the availability
// controller's reason, and requests to its group version answered 503 by the proxy handler.

const e2e = e2eForFile();

const rowOf = (stdout: string, name: string) =>
  stdout
    .trimEnd()
    .split('\n')
    .map((line) => line.trim().split(/\s{2,}/))
    .find((cells) => cells[0] === name);

describe('APIServices (kube-aggregator)', () => {
  it('kubectl get apiservices prints NAME SERVICE AVAILABLE AGE, a Local APIService per served group version with kube-apiserver priorities (autoregister)', async () => {
    const { kubectl } = e2e;
    const got = await kubectl.run(['get', 'apiservices']);
    expect(got.stderr).toBe('');
    expect(tableRow(got.stdout).header).toEqual(['NAME', 'SERVICE', 'AVAILABLE', 'AGE']);
    for (const name of [
      'v1.',
      'v1.apps',
      'v1.batch',
      'v2.autoscaling',
      'v1.apiextensions.k8s.io',
      'v1.apiregistration.k8s.io',
    ])
      expect(rowOf(got.stdout, name)?.slice(0, 3)).toEqual([name, 'Local', 'True']);
    const apps = await e2e.api.get<APIService>(
      '/apis/apiregistration.k8s.io/v1/apiservices/v1.apps',
    );
    expect(apps.body.spec).toEqual({
      group: 'apps',
      version: 'v1',
      groupPriorityMinimum: 17800,
      versionPriority: 15,
    });
    expect(apps.body.metadata.labels).toEqual({
      'kube-aggregator.kubernetes.io/automanaged': 'onstart',
    });
    expect(apps.body.status?.conditions).toEqual([
      expect.objectContaining({
        type: 'Available',
        status: 'True',
        reason: 'Local',
        message: 'Local APIServices are always available',
      }),
    ]);
    const resources = await kubectl.run(['api-resources', '--api-group', 'apiregistration.k8s.io']);
    expect(resources.stderr).toBe('');
    expect(resources.stdout.trimEnd().split('\n')[1]?.split(/\s+/)).toEqual([
      'apiservices',
      'apiregistration.k8s.io/v1',
      'false',
      'APIService',
    ]);
  });

  it('an established CRD group version gets a local APIService (crdregistration: 1000/100) that goes with the CRD', async () => {
    const { kubectl } = e2e;
    const crd = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gadgets.agg.example.com
spec:
  group: agg.example.com
  scope: Namespaced
  names: {plural: gadgets, kind: Gadget}
  versions:
  - name: v1alpha1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
`;
    expect((await kubectl.run(['apply', '-f', kubectl.write('gadget-crd.yaml', crd)])).stderr).toBe(
      '',
    );
    await expect
      .poll(async () => {
        const got = await kubectl.run(['get', 'apiservice', 'v1alpha1.agg.example.com']);
        return rowOf(got.stdout, 'v1alpha1.agg.example.com')?.slice(0, 3);
      })
      .toEqual(['v1alpha1.agg.example.com', 'Local', 'True']);
    const service = await e2e.api.get<APIService>(
      '/apis/apiregistration.k8s.io/v1/apiservices/v1alpha1.agg.example.com',
    );
    expect(service.body.spec).toMatchObject({ groupPriorityMinimum: 1000, versionPriority: 100 });
    expect(service.body.metadata.labels).toEqual({
      'kube-aggregator.kubernetes.io/automanaged': 'true',
    });
    const deleted = await kubectl.run(['delete', 'crd', 'gadgets.agg.example.com', '--wait=true']);
    expect(deleted.code).toBe(0);
    await expect
      .poll(
        async () =>
          (
            await e2e.api.get(
              '/apis/apiregistration.k8s.io/v1/apiservices/v1alpha1.agg.example.com',
            )
          ).status,
      )
      .toBe(404);
  });

  it("an APIService naming a Service is unavailable with the availability controller's reason, and its group version answers 503 service unavailable (handler_proxy.go)", async () => {
    const { kubectl } = e2e;
    const ns = await e2e.api.namespace('agg');
    const apiService = `apiVersion: apiregistration.k8s.io/v1
kind: APIService
metadata:
  name: v1beta1.metrics.example.com
spec:
  group: metrics.example.com
  version: v1beta1
  groupPriorityMinimum: 100
  versionPriority: 100
  insecureSkipTLSVerify: true
  service: {namespace: ${ns}, name: metrics-server}
`;
    const created = await kubectl.run([
      'apply',
      '-f',
      kubectl.write('apiservice.yaml', apiService),
    ]);
    expect(created.stderr).toBe('');
    expect(created.stdout.trim()).toBe(
      'apiservice.apiregistration.k8s.io/v1beta1.metrics.example.com created',
    );
    await expect
      .poll(async () => {
        const got = await kubectl.run(['get', 'apiservice', 'v1beta1.metrics.example.com']);
        return rowOf(got.stdout, 'v1beta1.metrics.example.com')?.slice(0, 3);
      })
      .toEqual(['v1beta1.metrics.example.com', `${ns}/metrics-server`, 'False (ServiceNotFound)']);
    const stored = await e2e.api.get<APIService>(
      '/apis/apiregistration.k8s.io/v1/apiservices/v1beta1.metrics.example.com',
    );
    expect(stored.body.spec?.service).toEqual({ namespace: ns, name: 'metrics-server', port: 443 });
    expect(stored.body.status?.conditions?.[0]?.message).toBe(
      `service/metrics-server in "${ns}" is not present`,
    );

    const raw = await kubectl.run(['get', '--raw', '/apis/metrics.example.com/v1beta1']);
    expect(raw.code).not.toBe(0);
    expect(raw.stderr).toContain('Error from server (ServiceUnavailable)');
    const direct = await e2e.api.get('/apis/metrics.example.com/v1beta1/nodes');
    expect(direct.status).toBe(503);
    expect(direct.body).toMatchObject({
      code: 503,
      reason: 'ServiceUnavailable',
      message: 'service unavailable',
    });

    // The Service appears without endpoints: the next reason in the controller's order.
    const svc = await e2e.api.post(`/api/v1/namespaces/${ns}/services`, {
      metadata: { name: 'metrics-server' },
      spec: { ports: [{ port: 443, targetPort: 4443 }] },
    });
    expect(svc.status).toBe(201);
    await expect
      .poll(async () => {
        const got = await kubectl.run(['get', 'apiservice', 'v1beta1.metrics.example.com']);
        return rowOf(got.stdout, 'v1beta1.metrics.example.com')?.[2];
      })
      .toBe('False (EndpointsNotFound)');
  });

  it("an APIService is validated as kube-aggregator's validation.go does", async () => {
    const { kubectl } = e2e;
    const bad = `apiVersion: apiregistration.k8s.io/v1
kind: APIService
metadata:
  name: v1.wrong.example.com
spec:
  group: metrics.example.com
  version: v1
  groupPriorityMinimum: 30000
  versionPriority: 0
  caBundle: Zm9v
`;
    const refused = await kubectl.run(['apply', '-f', kubectl.write('bad.yaml', bad)]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('The APIService "v1.wrong.example.com" is invalid: ');
    for (const detail of [
      'metadata.name: Invalid value: "v1.wrong.example.com": must be `spec.version+"."+spec.group`: "v1.metrics.example.com"',
      'spec.groupPriorityMinimum: Invalid value: 30000: must be positive and less than 20000',
      'spec.versionPriority: Invalid value: 0: must be positive and less than 1000',
      'spec.caBundle: Invalid value: "3 bytes": local APIServices may not have a caBundle',
    ])
      expect(refused.stderr).toContain(detail);
  });
});
