import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ApiError, findBuiltinResource, jsonLineLogger } from '@listwatch/api';
import { tempDir } from '@listwatch/testing';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TokenFileProvider } from './credentials.js';
import { FakeClock } from '../util/fake-clock.js';
import {
  KubeConfig,
  KubeConfigError,
  mergeKubeConfigs,
  type KubeConfigData,
} from './kubeconfig.js';
import { RestClient } from '../rest/client.js';
import { json, TestServer } from '../testing/test-server.js';
import { makeTestPki } from '../testing/tls.js';

let dir: { path: string; remove(): void };
beforeEach(() => {
  dir = tempDir('listwatch-kubeconfig-');
});
afterEach(() => dir.remove());

function write(name: string, text: string): string {
  const path = join(dir.path, name);
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, text);
  return path;
}

const SIMPLE = (ctx: string, server: string, extra = '') => `
apiVersion: v1
kind: Config
current-context: ${ctx}
clusters:
- name: ${ctx}-cluster
  cluster:
    server: ${server}
users:
- name: ${ctx}-user
  user:
    token: token-of-${ctx}
contexts:
- name: ${ctx}
  context:
    cluster: ${ctx}-cluster
    user: ${ctx}-user
    namespace: ns-${ctx}
${extra}`;

describe('parsing a kubeconfig (clientcmd/api/v1)', () => {
  it('reads clusters, users and contexts with their kebab-case keys', () => {
    const kc = KubeConfig.fromString(
      `
current-context: dev
clusters:
- name: c
  cluster:
    server: https://10.0.0.1:6443
    certificate-authority-data: ${Buffer.from('-----BEGIN CERTIFICATE-----\nx\n-----END CERTIFICATE-----\n').toString('base64')}
    tls-server-name: api.internal
users:
- name: u
  user:
    client-certificate: certs/u.crt
    client-key: /abs/u.key
    exec:
      apiVersion: client.authentication.k8s.io/v1
      command: ./bin/get-token
      args: [--cluster, c]
      env: [{name: REGION, value: eu}]
      interactiveMode: Never
- name: basic
  user:
    username: admin
    password: pw
contexts:
- name: dev
  context: {cluster: c, user: u, namespace: team}
`,
      { path: '/etc/kube/config' },
    );
    expect(kc.currentContext).toBe('dev');
    expect(kc.getCluster('c')).toMatchObject({
      server: 'https://10.0.0.1:6443',
      tlsServerName: 'api.internal',
    });
    expect(kc.getUser('u')).toMatchObject({
      clientCertificate: '/etc/kube/certs/u.crt',
      clientKey: '/abs/u.key',
      exec: {
        command: '/etc/kube/bin/get-token',
        args: ['--cluster', 'c'],
        env: [{ name: 'REGION', value: 'eu' }],
        interactiveMode: 'Never',
      },
    });
    expect(kc.namespace()).toBe('team');
  });

  it('leaves a bare exec command to PATH and resolves only relative file paths', () => {
    const kc = KubeConfig.fromString(
      'users:\n- name: u\n  user:\n    tokenFile: tok\n    exec: {apiVersion: client.authentication.k8s.io/v1beta1, command: aws}\n',
      { path: '/home/me/.kube/config' },
    );
    expect(kc.getUser('u')).toMatchObject({
      tokenFile: '/home/me/.kube/tok',
      exec: { command: 'aws' },
    });
  });

  it('rejects malformed documents with a 400 ApiError naming the file', () => {
    for (const text of [
      'clusters: 3',
      'clusters:\n- cluster: {server: x}',
      'users:\n- name: u\n  user: {token: 7}',
      ': :',
    ]) {
      let err: unknown;
      try {
        KubeConfig.fromString(text, { path: 'bad.yaml' });
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(KubeConfigError);
      expect(err).toBeInstanceOf(ApiError);
      expect((err as ApiError).code).toBe(400);
      expect((err as Error).message).toContain('bad.yaml');
    }
  });

  it('treats an empty file as an empty config', () => {
    expect(KubeConfig.fromString('')).toMatchObject({
      clusters: [],
      users: [],
      contexts: [],
      currentContext: '',
    });
  });
});

describe('merging kubeconfigs like kubectl (clientcmd ClientConfigLoadingRules.Load)', () => {
  const names = fc.constantFrom('a', 'b', 'c');
  const config = fc.record({
    clusters: fc
      .uniqueArray(names, { selector: (n) => n })
      .map((ns) => ns.map((name) => ({ name, server: `https://${name}` }))),
    users: fc.uniqueArray(names, { selector: (n) => n }).map((ns) => ns.map((name) => ({ name }))),
    contexts: fc
      .uniqueArray(names, { selector: (n) => n })
      .map((ns) => ns.map((name) => ({ name, cluster: name, user: name }))),
    currentContext: fc.constantFrom('', 'a', 'b'),
  });

  it('takes each cluster, user and context from the first file that defines its name, whole, and current-context from the first that sets one', () => {
    fc.assert(
      fc.property(fc.array(config, { maxLength: 5 }), (configs) => {
        // Tag every entry with the file it came from.
        const tagged: KubeConfigData[] = configs.map((c, i) => ({
          clusters: c.clusters.map((x) => ({ ...x, server: `${x.server}/${i}` })),
          users: c.users.map((x) => ({ ...x, token: `t${i}` })),
          contexts: c.contexts.map((x) => ({ ...x, namespace: `ns${i}` })),
          currentContext: c.currentContext,
        }));
        const merged = mergeKubeConfigs(tagged);
        for (const name of ['a', 'b', 'c']) {
          const first = tagged.findIndex((c) => c.clusters.some((x) => x.name === name));
          const found = merged.clusters.filter((x) => x.name === name);
          expect(found).toHaveLength(first < 0 ? 0 : 1);
          if (first >= 0) expect(found[0]?.server).toBe(`https://${name}/${first}`);
          const firstUser = tagged.findIndex((c) => c.users.some((x) => x.name === name));
          if (firstUser >= 0)
            expect(merged.users.find((x) => x.name === name)?.token).toBe(`t${firstUser}`);
          const firstCtx = tagged.findIndex((c) => c.contexts.some((x) => x.name === name));
          if (firstCtx >= 0)
            expect(merged.contexts.find((x) => x.name === name)?.namespace).toBe(`ns${firstCtx}`);
        }
        expect(merged.currentContext).toBe(
          tagged.find((c) => c.currentContext !== '')?.currentContext ?? '',
        );
      }),
    );
  });

  it('merges the $KUBECONFIG list in order, skipping missing files and reading duplicates once', () => {
    const one = write('one/config', SIMPLE('one', 'https://one'));
    const two = write('two/config', SIMPLE('two', 'https://two'));
    const kc = KubeConfig.loadDefault({
      env: { KUBECONFIG: [join(dir.path, 'missing'), one, two, one].join(':') },
      homeDir: dir.path,
    });
    expect(kc.currentContext).toBe('one');
    expect(kc.contexts.map((c) => c.name)).toEqual(['one', 'two']);
    expect(kc.sources).toEqual([one, two]);
    expect(kc.withContext('two').restConfig().server).toBe('https://two');
  });
});

describe('finding the configuration (kubectl, then in-cluster)', () => {
  it('reads ~/.kube/config when $KUBECONFIG is unset', () => {
    write('home/.kube/config', SIMPLE('home', 'https://home'));
    const kc = KubeConfig.loadDefault({ env: {}, homeDir: join(dir.path, 'home') });
    expect(kc.restConfig()).toMatchObject({ server: 'https://home', namespace: 'ns-home' });
  });

  it("falls back to the pod's service account, re-reading its token as it rotates", async () => {
    const sa = join(dir.path, 'sa');
    write('sa/token', 'first-token\n');
    write('sa/namespace', 'team-a');
    const kc = KubeConfig.loadDefault({
      env: { KUBERNETES_SERVICE_HOST: 'fd00::1', KUBERNETES_SERVICE_PORT: '443' },
      homeDir: join(dir.path, 'nohome'),
      serviceAccountDir: sa,
    });
    const clock = new FakeClock(0);
    const config = kc.restConfig({ clock });
    expect(config).toMatchObject({ server: 'https://[fd00::1]:443', namespace: 'team-a' });
    expect(await config.credentials?.credentials()).toEqual({
      authorization: 'Bearer first-token',
    });
    write('sa/token', 'rotated-token');
    expect(await config.credentials?.credentials()).toEqual({
      authorization: 'Bearer first-token',
    });
    clock.step(60_000);
    expect(await config.credentials?.credentials()).toEqual({
      authorization: 'Bearer rotated-token',
    });
  });

  it('prefers POD_NAMESPACE over the namespace file in a pod', () => {
    write('sa/token', 't');
    write('sa/namespace', 'from-file');
    const kc = KubeConfig.inCluster({
      env: {
        KUBERNETES_SERVICE_HOST: '10.0.0.1',
        KUBERNETES_SERVICE_PORT: '443',
        POD_NAMESPACE: 'from-env',
      },
      serviceAccountDir: join(dir.path, 'sa'),
    });
    expect(kc.namespace()).toBe('from-env');
  });

  it('says where it looked when there is no configuration anywhere', () => {
    expect(() =>
      KubeConfig.loadDefault({ env: {}, homeDir: dir.path, serviceAccountDir: dir.path }),
    ).toThrow(/no configuration has been provided/);
  });
});

describe('turning a context into a RestConfig (clientcmd DirectClientConfig)', () => {
  const pemData = Buffer.from(
    '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n',
  ).toString('base64');

  it('decodes inline CA data and builds bearer and basic credentials', async () => {
    const kc = KubeConfig.fromString(`
current-context: t
clusters: [{name: c, cluster: {server: 'https://x', certificate-authority-data: ${pemData}}}]
users:
- {name: tok, user: {token: abc}}
- {name: basic, user: {username: admin, password: 'p:w'}}
contexts:
- {name: t, context: {cluster: c, user: tok}}
- {name: b, context: {cluster: c, user: basic}}
- {name: anon, context: {cluster: c}}
`);
    const t = kc.restConfig();
    expect(t.tls?.ca).toContain('BEGIN CERTIFICATE');
    expect(await t.credentials?.credentials()).toEqual({ authorization: 'Bearer abc' });
    expect(await kc.restConfig({ context: 'b' }).credentials?.credentials()).toEqual({
      authorization: `Basic ${Buffer.from('admin:p:w').toString('base64')}`,
    });
    expect(await kc.restConfig({ context: 'anon' }).credentials?.credentials()).toEqual({});
    expect(kc.restConfig({ context: 'anon' }).namespace).toBe('default');
  });

  it("with both token and tokenFile, sends the file's token and falls back to the inline one while the file is unreadable (client-go NewBearerAuthWithRefreshRoundTripper)", async () => {
    const file = join(dir.path, 'rotating-token');
    const kc = KubeConfig.fromString(`
current-context: t
clusters: [{name: c, cluster: {server: 'https://x'}}]
users: [{name: u, user: {token: inline, tokenFile: '${file}'}}]
contexts: [{name: t, context: {cluster: c, user: u}}]
`);
    // One provider, as a client keeps it: the inline token until the file can be read.
    const clock = new FakeClock(Date.now());
    const creds = kc.restConfig({ clock }).credentials!;
    expect(await creds.credentials()).toEqual({ authorization: 'Bearer inline' });
    writeFileSync(file, 'from-file\n');
    clock.step(50_000); // client-go re-reads token files every minute at most; we every 50 s
    expect(await creds.credentials()).toEqual({ authorization: 'Bearer from-file' });
  });

  it('uses a token or certificate given with an exec plugin and never runs the plugin (client-go exec.Authenticator.UpdateTransportConfig)', async () => {
    const ran = join(dir.path, 'plugin-ran');
    const plugin = write(
      'plugin.cjs',
      `require('fs').writeFileSync(${JSON.stringify(ran)}, 'yes');
process.stdout.write(JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', status: { token: 'from-plugin' } }));`,
    );
    const exec = `{apiVersion: client.authentication.k8s.io/v1, command: '${process.execPath}', args: ['${plugin}'], interactiveMode: Never}`;
    const kc = KubeConfig.fromString(`
current-context: tok
clusters: [{name: c, cluster: {server: 'https://x'}}]
users:
- {name: tok, user: {token: static, exec: ${exec}}}
- {name: only-exec, user: {exec: ${exec}}}
contexts:
- {name: tok, context: {cluster: c, user: tok}}
- {name: only-exec, context: {cluster: c, user: only-exec}}
`);
    expect(await kc.restConfig().credentials?.credentials()).toEqual({
      authorization: 'Bearer static',
    });
    expect(existsSync(ran)).toBe(false);
    expect(await kc.restConfig({ context: 'only-exec' }).credentials?.credentials()).toEqual({
      authorization: 'Bearer from-plugin',
    });
    expect(existsSync(ran)).toBe(true);
  });

  it('refuses a CA together with insecure-skip-tls-verify, as kubectl does', () => {
    const kc = KubeConfig.fromString(`
current-context: t
clusters: [{name: c, cluster: {server: 'https://x', insecure-skip-tls-verify: true, certificate-authority-data: ${pemData}}}]
contexts: [{name: t, context: {cluster: c}}]
`);
    expect(() => kc.restConfig()).toThrow(/insecure flag is not allowed/);
  });

  it('names what is missing: context, cluster, user, server', () => {
    const kc = KubeConfig.fromString(`
current-context: nope
clusters: [{name: empty, cluster: {}}]
contexts: [{name: a, context: {cluster: gone}}, {name: b, context: {cluster: empty, user: ghost}}, {name: c, context: {cluster: empty}}]
`);
    expect(() => kc.restConfig()).toThrow(/context "nope" does not exist/);
    expect(() => kc.restConfig({ context: 'a' })).toThrow(/cluster "gone" does not exist/);
    expect(() => kc.restConfig({ context: 'b' })).toThrow(/user "ghost" does not exist/);
    expect(() => kc.restConfig({ context: 'c' })).toThrow(/no server found/);
  });

  it('connects to a TLS apiserver with the CA and client certificate files it names', async () => {
    const pki = makeTestPki();
    const server = await TestServer.start({
      tls: { cert: pki.serverCert, key: pki.serverKey, ca: pki.ca, requestCert: true },
    });
    server.handle((req, res) =>
      json(res, 200, {
        kind: 'Namespace',
        apiVersion: 'v1',
        metadata: { name: req.clientCN ?? 'anonymous' },
      }),
    );
    try {
      const path = write(
        'kube/config',
        `
current-context: tls
clusters: [{name: c, cluster: {server: '${server.url}', certificate-authority: ${pki.files.ca}}}]
users: [{name: u, user: {client-certificate: ${pki.files.clientCert}, client-key: ${pki.files.clientKey}}}]
contexts: [{name: tls, context: {cluster: c, user: u}}]
`,
      );
      const client = RestClient.fromKubeConfig(KubeConfig.fromFile(path));
      const ns = await client.resource(findBuiltinResource('namespaces')!).get('whoami');
      expect(ns.metadata.name).toBe('test-user');
      await client.close();
    } finally {
      await server.close();
      pki.remove();
    }
  });
});

describe('TokenFileProvider (client-go transport.NewCachedFileTokenSource)', () => {
  it('keeps the last good token when a re-read fails, without logging the token', async () => {
    const path = write('token', 'good-token');
    const lines: string[] = [];
    const clock = new FakeClock(0);
    const provider = new TokenFileProvider(path, {
      clock,
      logger: jsonLineLogger({ level: 'debug', write: (l) => lines.push(l) }),
    });
    expect(await provider.credentials()).toEqual({ authorization: 'Bearer good-token' });
    dir.remove();
    clock.step(120_000);
    expect(await provider.credentials()).toEqual({ authorization: 'Bearer good-token' });
    expect(lines.some((l) => l.includes('could not re-read the token file'))).toBe(true);
    expect(lines.join('\n')).not.toContain('good-token');
  });

  it('fails with 401 when the file was never readable', async () => {
    await expect(
      new TokenFileProvider(join(dir.path, 'absent')).credentials(),
    ).rejects.toMatchObject({ code: 401 });
  });
});
