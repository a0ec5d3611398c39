import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ApiError, findBuiltinResource, jsonLineLogger } from '@listwatch/api';
import { tempDir } from '@listwatch/testing';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ExecCredentialProvider, type ExecConfig } from './exec-credential.js';
import { FakeClock } from '../util/fake-clock.js';
import { KubeConfig } from './kubeconfig.js';
import { RestClient } from '../rest/client.js';
import { json, statusBody, TestServer } from '../testing/test-server.js';
import { makeTestPki, type TestPki } from '../testing/tls.js';

/**
 * A tiny exec plugin: counts its runs in a file, records what it was given, and prints an
 * ExecCredential whose token says which run produced it.
 */
const PLUGIN = `
const fs = require('node:fs');
const dir = process.env.PLUGIN_DIR;
fs.appendFileSync(dir + '/runs', 'x');
const run = fs.readFileSync(dir + '/runs', 'utf8').length;
fs.writeFileSync(dir + '/input-' + run + '.json', JSON.stringify({ info: JSON.parse(process.env.KUBERNETES_EXEC_INFO), args: process.argv.slice(2), region: process.env.REGION }));
const mode = process.env.PLUGIN_MODE || 'token';
if (mode === 'fail') { process.stderr.write('no credentials for you\\n'); process.exit(3); }
const apiVersion = mode === 'wrong-version' ? 'client.authentication.k8s.io/v1alpha1' : JSON.parse(process.env.KUBERNETES_EXEC_INFO).apiVersion;
const status = mode === 'cert'
  ? { clientCertificateData: fs.readFileSync(process.env.CERT, 'utf8'), clientKeyData: fs.readFileSync(process.env.KEY, 'utf8') }
  : { token: 'run-' + run + '-token' };
if (process.env.EXPIRES) status.expirationTimestamp = process.env.EXPIRES;
process.stdout.write(JSON.stringify({ apiVersion, kind: 'ExecCredential', status }));
`;

let dir: { path: string; remove(): void };
let script: string;
beforeEach(() => {
  dir = tempDir('listwatch-exec-');
  script = join(dir.path, 'plugin.cjs');
  writeFileSync(script, PLUGIN);
});
afterEach(() => dir.remove());

function config(
  env: Record<string, string> = {},
  apiVersion = 'client.authentication.k8s.io/v1',
): ExecConfig {
  return {
    apiVersion,
    command: process.execPath,
    args: [script, '--flag'],
    env: Object.entries({ PLUGIN_DIR: dir.path, REGION: 'eu', ...env }).map(([name, value]) => ({
      name,
      value,
    })),
    interactiveMode: 'Never',
    installHint: 'install the plugin from example.test',
  };
}

const runs = (): number => readFileSync(join(dir.path, 'runs'), 'utf8').length;
interface PluginInput {
  info: { apiVersion: string; kind: string; spec: Record<string, unknown> };
  args: string[];
  region: string;
}
const input = (run: number): PluginInput =>
  JSON.parse(readFileSync(join(dir.path, `input-${run}.json`), 'utf8')) as PluginInput;

describe('ExecCredentialProvider (client-go plugin/pkg/client/auth/exec)', () => {
  it('runs the command with its args, env and KUBERNETES_EXEC_INFO, and uses the returned token', async () => {
    for (const apiVersion of [
      'client.authentication.k8s.io/v1',
      'client.authentication.k8s.io/v1beta1',
    ]) {
      const provider = new ExecCredentialProvider(config({}, apiVersion), {
        cluster: { server: 'https://x' },
      });
      const creds = await provider.credentials();
      expect(creds.authorization).toMatch(/^Bearer run-\d-token$/);
      const seen = input(runs());
      expect(seen.info).toEqual({
        apiVersion,
        kind: 'ExecCredential',
        spec: { interactive: false },
      });
      expect(seen.args).toEqual(['--flag']);
      expect(seen.region).toBe('eu');
    }
  });

  it('hands the cluster to the plugin when provideClusterInfo is set', async () => {
    const provider = new ExecCredentialProvider(
      { ...config(), provideClusterInfo: true },
      { cluster: { server: 'https://api.test', 'tls-server-name': 'api' } },
    );
    await provider.credentials();
    expect(input(1).info.spec).toEqual({
      interactive: false,
      cluster: { server: 'https://api.test', 'tls-server-name': 'api' },
    });
  });

  it('caches the credential until its expirationTimestamp, sharing one run among concurrent callers', async () => {
    const clock = new FakeClock(Date.parse('2030-01-01T00:00:00Z'));
    const provider = new ExecCredentialProvider(config({ EXPIRES: '2030-01-01T00:10:00Z' }), {
      clock,
    });
    const [a, b] = await Promise.all([provider.credentials(), provider.credentials()]);
    expect(a).toBe(b);
    clock.step(9 * 60_000);
    expect((await provider.credentials()).authorization).toBe('Bearer run-1-token');
    clock.step(60_000);
    expect((await provider.credentials()).authorization).toBe('Bearer run-2-token');
    expect(provider.runs).toBe(2);
  });

  it('after a 401 runs the plugin once, and a late 401 from the old credential keeps the new one and still asks for a retry', async () => {
    const provider = new ExecCredentialProvider(config());
    const first = await provider.credentials();
    expect(provider.unauthorized(first)).toBe(true);
    const second = await provider.credentials();
    expect(second.authorization).toBe('Bearer run-2-token');
    // A request sent with the first credential before the refresh comes back 401 only now.
    expect(provider.unauthorized(first)).toBe(true);
    expect(await provider.credentials()).toBe(second);
    expect(provider.runs).toBe(2);
  });

  it('reports a failing plugin as a 401 naming the command, its stderr and the install hint', async () => {
    const err = await new ExecCredentialProvider(config({ PLUGIN_MODE: 'fail' }))
      .credentials()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ code: 401, reason: 'Unauthorized' });
    expect((err as Error).message).toMatch(
      /exit code 3: no credentials for you; install the plugin from example.test/,
    );
    await expect(
      new ExecCredentialProvider({ ...config(), command: join(dir.path, 'missing') }).credentials(),
    ).rejects.toMatchObject({ code: 401 });
  });

  it('rejects a credential of another apiVersion, and configurations client-go rejects', async () => {
    await expect(
      new ExecCredentialProvider(config({ PLUGIN_MODE: 'wrong-version' })).credentials(),
    ).rejects.toThrow(/expected client.authentication.k8s.io\/v1/);
    const { interactiveMode: _omit, ...v1WithoutMode } = config();
    expect(() => new ExecCredentialProvider(v1WithoutMode)).toThrow(
      /interactiveMode must be specified/,
    );
    expect(
      () =>
        new ExecCredentialProvider({
          ...config(),
          apiVersion: 'client.authentication.k8s.io/v1alpha1',
        }),
    ).toThrow(/unsupported apiVersion/);
    expect(() => new ExecCredentialProvider({ ...config(), interactiveMode: 'Always' })).toThrow(
      /terminal/,
    );
  });
});

describe('exec credentials through the REST client', () => {
  let server: TestServer;
  let pki: TestPki;
  beforeAll(async () => {
    pki = makeTestPki();
    server = await TestServer.start({
      tls: { cert: pki.serverCert, key: pki.serverKey, ca: pki.ca, requestCert: true },
    });
  });
  afterAll(async () => {
    await server.close();
    pki.remove();
  });

  const kubeconfig = (env: Record<string, string>): KubeConfig =>
    KubeConfig.fromString(`
current-context: x
clusters: [{name: c, cluster: {server: '${server.url}', certificate-authority: ${pki.files.ca}}}]
users:
- name: u
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1
      command: ${process.execPath}
      args: [${script}]
      interactiveMode: Never
      env: [${Object.entries({ PLUGIN_DIR: dir.path, ...env })
        .map(([k, v]) => `{name: ${k}, value: '${v}'}`)
        .join(', ')}]
contexts: [{name: x, context: {cluster: c, user: u}}]
`);

  it('runs the plugin again after a 401 and retries with the new token, never logging it', async () => {
    server.requests.length = 0;
    server.handle((req, res) =>
      req.headers.authorization === 'Bearer run-1-token'
        ? json(res, 401, statusBody(401, 'Unauthorized', 'Unauthorized'))
        : json(res, 200, { kind: 'Namespace', apiVersion: 'v1', metadata: { name: 'ok' } }),
    );
    const lines: string[] = [];
    const client = RestClient.fromKubeConfig(kubeconfig({}), {
      logger: jsonLineLogger({ level: 'debug', write: (l) => lines.push(l) }),
    });
    const ns = await client.resource(findBuiltinResource('namespaces')!).get('ok');
    expect(ns.metadata.name).toBe('ok');
    expect(server.requests.map((r) => r.headers.authorization)).toEqual([
      'Bearer run-1-token',
      'Bearer run-2-token',
    ]);
    expect(lines.join('\n')).not.toMatch(/run-\d-token/);
    await client.close();
  });

  it('presents the client certificate a plugin returns', async () => {
    server.handle((req, res) =>
      json(res, 200, {
        kind: 'Namespace',
        apiVersion: 'v1',
        metadata: { name: req.clientCN ?? 'anonymous' },
      }),
    );
    const client = RestClient.fromKubeConfig(
      kubeconfig({ PLUGIN_MODE: 'cert', CERT: pki.files.clientCert, KEY: pki.files.clientKey }),
    );
    const ns = await client.resource(findBuiltinResource('namespaces')!).get('whoami');
    expect(ns.metadata.name).toBe('test-user');
    await client.close();
  });
});
