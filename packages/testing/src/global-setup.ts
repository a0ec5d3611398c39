import { ensurePythonKubernetes } from './debian-package.js';
import { ensureEtcdBinary } from './etcd-binary.js';

// Runs once per `vitest run`: make sure etcd and the Python client are installed before any test
// file needs them, so parallel test files never race on apt-get.
export default function setup(): void {
  const log = (line: string) => console.log(`[test-setup] ${line}`);
  ensureEtcdBinary(log);
  ensurePythonKubernetes(log);
}
