import { describe, expect, it } from 'vitest';
import { samplePod, samplePods } from './sample-pods.js';

describe('samplePod', () => {
  it('pods are realistic: 4–5 KB of JSON each', () => {
    for (const pod of samplePods(200)) {
      const size = Buffer.byteLength(JSON.stringify(pod));
      expect(size).toBeGreaterThanOrEqual(4000);
      expect(size).toBeLessThanOrEqual(5000);
    }
  });

  it('the same index always gives the same pod, and indexes give distinct names', () => {
    expect(samplePod(42)).toEqual(samplePod(42));
    const names = new Set(
      samplePods(1000).map((pod) => `${pod.metadata.namespace}/${pod.metadata.name}`),
    );
    expect(names.size).toBe(1000);
  });
});
