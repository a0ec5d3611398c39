import type { KubeObject } from '@listwatch/api';

/** A ConfigMap of about 1 KB, the write-path benchmarks' object; `generation` changes its data. */
export function configMap(name: string, generation = 0): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: 'bench', labels: { app: 'bench', tier: 'storage' } },
    data: { generation: String(generation), payload: 'x'.repeat(900) },
  };
}
