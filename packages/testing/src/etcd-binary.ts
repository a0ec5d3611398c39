import { execFileSync, spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

const INSTALL_HINT =
  'etcd is required by the tests. Install it with: sudo apt-get update && sudo apt-get install -y etcd-server';

function findOnPath(name: string): string | undefined {
  for (const dir of (process.env['PATH'] ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/**
 * The path of the `etcd` binary. When it is missing and we are root, installs Debian's
 * `etcd-server` (the test setup promises to bring its own etcd); otherwise fails saying how.
 * `ETCD_BIN` overrides the lookup.
 */
export function ensureEtcdBinary(log: (line: string) => void = () => {}): string {
  const override = process.env['ETCD_BIN'];
  if (override) return override;
  const found = findOnPath('etcd');
  if (found) return found;
  if (process.getuid?.() !== 0) throw new Error(INSTALL_HINT);
  log('etcd not found; installing Debian package etcd-server with apt-get');
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const update = spawnSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
  if (update.status !== 0) throw new Error(`apt-get update failed. ${INSTALL_HINT}`);
  const install = spawnSync('apt-get', ['install', '-y', '-qq', 'etcd-server'], {
    stdio: 'inherit',
    env,
  });
  if (install.status !== 0) throw new Error(`apt-get install etcd-server failed. ${INSTALL_HINT}`);
  const installed = findOnPath('etcd');
  if (!installed) throw new Error(`etcd-server installed but no etcd on PATH. ${INSTALL_HINT}`);
  log(execFileSync(installed, ['--version'], { encoding: 'utf8' }).split('\n')[0] ?? '');
  return installed;
}
