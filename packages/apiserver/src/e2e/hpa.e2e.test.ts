import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { e2eForFile, tableRow } from './e2e.test-helper.js';

// HorizontalPodAutoscalers through kubectl 1.32: `kubectl autoscale` creates an autoscaling/v2
// HPA, `kubectl get hpa` prints printHorizontalPodAutoscaler's columns, and the same object
// reads through autoscaling/v1 (registry/autoscaling/horizontalpodautoscaler/conversion.ts).

const e2e = e2eForFile();

describe('HorizontalPodAutoscalers with kubectl', () => {
  it('kubectl autoscale deployment creates an HPA that kubectl get hpa prints as kube does, and autoscaling/v1 reads it with its CPU target', async () => {
    const ns = await e2e.api.namespace('hpa');
    const deploy = await e2e.kubectl.run([
      'create',
      'deployment',
      'web',
      '--image=nginx',
      '-n',
      ns,
    ]);
    expect(deploy.stderr).toBe('');
    const autoscale = await e2e.kubectl.run([
      'autoscale',
      'deployment',
      'web',
      '--min=2',
      '--max=5',
      '--cpu-percent=60',
      '-n',
      ns,
    ]);
    expect(autoscale.stderr).toBe('');
    expect(autoscale.stdout.trim()).toBe('horizontalpodautoscaler.autoscaling/web autoscaled');

    const get = await e2e.kubectl.run(['get', 'hpa', '-n', ns]);
    expect(get.stderr).toBe('');
    const { header, cells } = tableRow(get.stdout);
    // The header is kinds.e2e.test.ts's (HEADERS).
    expect(header[2]).toBe('TARGETS');
    expect(cells.slice(0, 6)).toEqual([
      'web',
      'Deployment/web',
      'cpu: <unknown>/60%',
      '2',
      '5',
      '0',
    ]);

    const v1 = await e2e.kubectl.run([
      'get',
      'horizontalpodautoscalers.v1.autoscaling',
      'web',
      '-n',
      ns,
      '-o',
      'jsonpath={.apiVersion} {.spec.targetCPUUtilizationPercentage} {.spec.minReplicas}',
    ]);
    expect(v1.stderr).toBe('');
    expect(v1.stdout).toBe('autoscaling/v1 60 2');

    const described = await e2e.kubectl.run(['describe', 'hpa', 'web', '-n', ns]);
    expect(described.stderr).toBe('');
    expect(described.stdout).toMatch(/Reference:\s+Deployment\/web/);
    expect(described.stdout).toMatch(
      /resource cpu on pods\s+\(as a percentage of request\):\s+<unknown> \/ 60%/,
    );
    expect(described.stdout).toMatch(/Min replicas:\s+2/);
    expect(described.stdout).toMatch(/Max replicas:\s+5/);
  });

  it("an HPA with maxReplicas below minReplicas is refused by kubectl apply with kube's message", async () => {
    const ns = await e2e.api.namespace('hpa-invalid');
    const manifest = JSON.stringify({
      apiVersion: 'autoscaling/v2',
      kind: 'HorizontalPodAutoscaler',
      metadata: { name: 'web', namespace: ns },
      spec: {
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
        minReplicas: 3,
        maxReplicas: 2,
      },
    });
    const dir = mkdtempSync(join(tmpdir(), 'hpa-'));
    const file = join(dir, 'hpa.json');
    writeFileSync(file, manifest);
    const result = await e2e.kubectl.run(['apply', '-f', file]);
    rmSync(dir, { recursive: true });
    expect(result.stderr).toContain(
      'spec.maxReplicas: Invalid value: 2: must be greater than or equal to `minReplicas`',
    );
  });
});
