// An informer against a closed port must hear of the failure within a second, not after
// its backoff.
import { join } from 'node:path';
import { attempt, check, freePort } from './report.js';

/** An informer against the server named by argv[2]: how long until its watch-error handler hears. */
export const UNREACHABLE_EXAMPLE = `import { coreV1, RestClient, SharedInformerFactory } from '@listwatch/client';

const client = new RestClient({ server: process.argv[2]! });
const factory = new SharedInformerFactory({ client });
const started = performance.now();
factory.informerFor(coreV1.configmaps).setWatchErrorHandler((err) => {
  console.log(\`reported \${Math.round(performance.now() - started)} ms: \${err.code} \${err.message}\`);
  void factory.shutdown().then(() => client.close());
});
factory.start();
`;

/** Runs the compiled `examples/unreachable.js` of `project` against a port nothing listens on. */
export async function checkUnreachable(project: string): Promise<void> {
  const closedPort = await freePort();
  const unreachable = await attempt(
    process.execPath,
    [join(project, 'out', 'examples', 'unreachable.js'), `http://127.0.0.1:${closedPort}`],
    { cwd: project, env: { ...process.env, NODE_OPTIONS: '' }, timeout: 30_000 },
  );
  const reported = /reported (\d+) ms: 503/.exec(unreachable.output);
  check(
    '@listwatch/client: an informer against a closed port reports the failure within 1 s',
    reported && Number(reported[1]) < 1000 ? [] : unreachable.output.trim().split('\n'),
  );
}
