import { MemoryStorage } from '@listwatch/storage';
import { silentLogger, tempDir } from '@listwatch/testing';
import { startApiServer } from '../server.js';
import { describe, expect, it } from 'vitest';
import { client, testServer } from '../testing/test-server.js';

// kube-apiserver's bootstrap controller (pkg/controlplane/controller/kubernetesservice/
// controller.go) and endpoint reconciler (pkg/controlplane/reconcilers/): every cluster has the
// Service default/kubernetes, leading to the apiserver.
describe('the default/kubernetes Service', () => {
  it('is created at start: ClusterIP 10.96.0.1, port 443 https to the server port, with an Endpoints and an EndpointSlice naming the server', async () => {
    const storage = new MemoryStorage({ compactionInterval: 0 });
    const server = await testServer(storage);
    try {
      const port = Number(new URL(server.url).port);
      const api = client(server.url);
      const service = await api.get('/api/v1/namespaces/default/services/kubernetes');
      expect(service.status).toBe(200);
      expect(service.body).toMatchObject({
        metadata: { labels: { component: 'apiserver', provider: 'kubernetes' } },
        spec: {
          type: 'ClusterIP',
          clusterIP: '10.96.0.1',
          ports: [{ name: 'https', port: 443, protocol: 'TCP', targetPort: port }],
        },
      });
      const endpoints = await api.get('/api/v1/namespaces/default/endpoints/kubernetes');
      expect(endpoints.body).toMatchObject({
        subsets: [{ addresses: [{ ip: '127.0.0.1' }], ports: [{ name: 'https', port }] }],
      });
      const slice = await api.get(
        '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices/kubernetes',
      );
      expect(slice.body).toMatchObject({
        metadata: { labels: { 'kubernetes.io/service-name': 'kubernetes' } },
        addressType: 'IPv4',
        endpoints: [{ addresses: ['127.0.0.1'], conditions: { ready: true } }],
        ports: [{ name: 'https', port, protocol: 'TCP' }],
      });
      // The address is taken: a Service asking for it is refused, as in kube.
      const taken = await api.post('/api/v1/namespaces/default/services', {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'other' },
        spec: { clusterIP: '10.96.0.1', ports: [{ port: 80 }] },
      });
      expect(taken.status).toBe(422);
    } finally {
      await server.close();
    }
  });

  it('follows a restart on another port: the next start rewrites the target port and endpoints', async () => {
    const dir = tempDir();
    const options = { storageBackend: 'sqlite' as const, dataDir: dir.path, port: 0 };
    const first = await startApiServer({ ...options, logger: silentLogger });
    await first.close();
    const second = await startApiServer({ ...options, logger: silentLogger });
    try {
      const port = Number(new URL(second.url).port);
      const api = client(second.url);
      const service = await api.get<{ spec: { ports: { targetPort: number }[] } }>(
        '/api/v1/namespaces/default/services/kubernetes',
      );
      expect(service.body.spec.ports[0]?.targetPort).toBe(port);
      const slice = await api.get<{ ports: { port: number }[] }>(
        '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices/kubernetes',
      );
      expect(slice.body.ports[0]?.port).toBe(port);
    } finally {
      await second.close();
      dir.remove();
    }
  });
});
