import { spawnSync } from 'node:child_process';

/**
 * Makes sure a Debian package the tests need is installed: when `present()` says no and we are
 * root, installs it with apt-get (the test setup promises to bring what it needs); otherwise
 * fails with `hint`, which says how.
 */
export function ensureDebianPackage(
  pkg: string,
  present: () => boolean,
  hint: string,
  log: (line: string) => void = () => {},
): void {
  if (present()) return;
  if (process.getuid?.() !== 0) throw new Error(hint);
  log(`${pkg} not found; installing it with apt-get`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const update = spawnSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
  if (update.status !== 0) throw new Error(`apt-get update failed. ${hint}`);
  const install = spawnSync('apt-get', ['install', '-y', '-qq', pkg], { stdio: 'inherit', env });
  if (install.status !== 0) throw new Error(`apt-get install ${pkg} failed. ${hint}`);
  if (!present()) throw new Error(`${pkg} installed but still not usable. ${hint}`);
}

/** The Kubernetes Python client (Debian's python3-kubernetes), run by /usr/bin/python3. */
export const PYTHON = '/usr/bin/python3';

export function ensurePythonKubernetes(log?: (line: string) => void): void {
  ensureDebianPackage(
    'python3-kubernetes',
    () => spawnSync(PYTHON, ['-c', 'import kubernetes'], { stdio: 'ignore' }).status === 0,
    'The Kubernetes Python client is required by the tests. Install it with: sudo apt-get update && sudo apt-get install -y python3-kubernetes',
    log,
  );
}
