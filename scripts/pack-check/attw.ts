// @arethetypeswrong/cli on one tarball, ESM only: node10 and CJS-from-ESM resolutions are the
// ones `--profile esm-only` leaves out.
import { join } from 'node:path';
import { root } from '../release.js';
import { attempt, check } from './report.js';

export async function attw(name: string, tarball: string, cwd: string): Promise<void> {
  const result = await attempt(
    join(root, 'node_modules', '.bin', 'attw'),
    [tarball, '--profile', 'esm-only', '--format', 'table-flipped'],
    { cwd },
  );
  check(
    `${name}: @arethetypeswrong/cli (esm-only profile) finds no problem`,
    result.ok ? [] : result.output.trim().split('\n'),
  );
}
