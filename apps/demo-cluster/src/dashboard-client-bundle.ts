import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';

/** The page's entry into @listwatch/client: the names it imports, re-exported. */
const entry = fileURLToPath(new URL('../dashboard/client.js', import.meta.url));

let bundled: Promise<string> | undefined;

/**
 * dashboard/client.js bundled for the browser, once per process: @listwatch/client as a bundler
 * resolves it for a page (its "browser" export and package.json "browser" field: fetch and the
 * browser's WebSocket, no Node built-ins), with only what the page imports. Sources in the
 * monorepo (`@listwatch/source`), as `pnpm demo` runs, else the packages' built files.
 */
export function dashboardClientBundle(): Promise<string> {
  bundled ??= build({
    entryPoints: [entry],
    bundle: true,
    platform: 'browser',
    format: 'esm',
    target: 'es2022',
    minify: true,
    legalComments: 'none',
    write: false,
    logLevel: 'silent',
    conditions: ['@listwatch/source'],
  }).then((result) => result.outputFiles[0]!.text);
  return bundled;
}
