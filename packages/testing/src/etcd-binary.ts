import { execFileSync } from 'node:child_process';
import { ensureDebianPackage } from './debian-package.js';
import { findOnPath } from './programs.js';

const INSTALL_HINT =
  'etcd is required by the tests. Install it with: sudo apt-get update && sudo apt-get install -y etcd-server';

/**
 * The path of the `etcd` binary, Debian's `etcd-server` installed first when missing (see
 * ensureDebianPackage).
 * `ETCD_BIN` overrides the lookup.
 */
export function ensureEtcdBinary(log: (line: string) => void = () => {}): string {
  const override = process.env['ETCD_BIN'];
  if (override) return override;
  const found = findOnPath('etcd');
  if (found) return found;
  ensureDebianPackage('etcd-server', () => findOnPath('etcd') !== undefined, INSTALL_HINT, log);
  const installed = findOnPath('etcd')!;
  log(execFileSync(installed, ['--version'], { encoding: 'utf8' }).split('\n')[0] ?? '');
  return installed;
}
