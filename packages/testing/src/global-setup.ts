import { ensureEtcdBinary } from './etcd-binary.js';

// Runs once per `vitest run`: make sure etcd is installed before any test file starts its own,
// so parallel test files never race on apt-get.
export default function setup(): void {
  ensureEtcdBinary((line) => console.log(`[test-setup] ${line}`));
}
