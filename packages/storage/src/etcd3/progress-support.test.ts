import { describe, expect, it } from 'vitest';
import { reliableProgressRequests } from './progress-support.js';

// k8s.io/apiserver/pkg/storage/feature/feature_support_checker.go: RequestWatchProgress only on
// etcd 3.4.31+ and 3.5.13+ (etcd#15220, etcd#17557).
describe('which etcd versions answer progress requests in order with events', () => {
  it.each([
    ['3.4.23', false],
    ['3.4.30', false],
    ['3.4.31', true],
    ['3.4.35', true],
    ['3.5.0', false],
    ['3.5.12', false],
    ['3.5.13', true],
    ['3.6.0', true],
    ['3.3.27', false],
    ['v3.5.17', true],
    ['not a version', false],
  ])('etcd %s: %s', (version, reliable) => {
    expect(reliableProgressRequests(version)).toBe(reliable);
  });
});
