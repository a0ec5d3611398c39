// publint --strict on one tarball.
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { root } from '../release.js';
import { attempt, check } from './report.js';

/** The packages whose "browser" object publint suggests against, kept on purpose. */
const BROWSER_MAPPED = new Set(['@listwatch/client', '@listwatch/codec']);

export async function publint(name: string, tarball: string, cwd: string): Promise<void> {
  const lint = await attempt(
    join(root, 'node_modules', '.bin', 'publint'),
    ['run', tarball, '--strict', '--pack', 'false'],
    { cwd },
  );
  // The one suggestion taken on purpose: the "browser" object of @listwatch/client (and
  // @listwatch/codec) maps Node-only modules to browser ones, which bundlers apply inside
  // the package (an "imports" map would put '#…' specifiers in published declarations).
  const suggestions = stripVTControlCharacters(lint.output)
    .split('\n')
    .filter((l) => /^\d+\. /.test(l))
    .filter((l) => !(BROWSER_MAPPED.has(name) && /pkg\.browser with an object value/.test(l)));
  const onlyTaken = lint.ok && /Suggestions:/.test(lint.output) && suggestions.length === 0;
  check(
    `${name}: publint --strict reports nothing${BROWSER_MAPPED.has(name) ? ' (but the "browser" map)' : ''}`,
    lint.ok && (/All good/.test(lint.output) || onlyTaken) ? [] : lint.output.trim().split('\n'),
  );
}
