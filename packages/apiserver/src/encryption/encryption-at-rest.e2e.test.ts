import { silentLogger } from '@listwatch/api';
import { tempDir } from '@listwatch/testing';
import Database from 'better-sqlite3';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubectlSession, uniqueName } from '../e2e/e2e.test-helper.js';
import { startApiServer, type RunningApiServer } from '../server.js';

// Encryption at rest as kube-apiserver's --encryption-provider-config, driven by the real
// kubectl, the stored bytes read straight from the SQLite file (kubernetes.io/docs "Encrypting
// Confidential Data at Rest": verify, then rotate by rewriting every Secret).

const dir = tempDir('listwatch-encryption-');
const dataDir = join(dir.path, 'data');
const key1 = randomBytes(32).toString('base64');
const key2 = randomBytes(32).toString('base64');

function writeConfig(name: string, keys: { name: string; secret: string }[]): string {
  const file = join(dir.path, name);
  writeFileSync(
    file,
    [
      'apiVersion: apiserver.config.k8s.io/v1',
      'kind: EncryptionConfiguration',
      'resources:',
      '  - resources: [secrets]',
      '    providers:',
      '      - aescbc:',
      '          keys:',
      ...keys.flatMap((k) => [
        `            - name: ${k.name}`,
        `              secret: ${k.secret}`,
      ]),
      '      - identity: {}',
    ].join('\n'),
  );
  return file;
}

/** The bytes stored for `key`, read from the database file while no server holds it. */
function stored(key: string): Buffer {
  const db = new Database(join(dataDir, 'state.db'), { readonly: true });
  try {
    const row = db
      .prepare<[string], { value: string | Buffer }>(
        'SELECT l.value AS value FROM kv_current c JOIN kv_log l ON l.rev = c.rev WHERE c.key = ?',
      )
      .get(key);
    if (!row) throw new Error(`nothing stored at ${key}`);
    return Buffer.from(row.value);
  } finally {
    db.close();
  }
}

describe('--encryption-provider-config with the real kubectl on sqlite', () => {
  let server: RunningApiServer | undefined;
  let kubectl: KubectlSession | undefined;
  const ns = uniqueName('enc');

  async function start(config: string): Promise<KubectlSession> {
    server = await startApiServer({
      storageBackend: 'sqlite',
      dataDir,
      encryptionProviderConfig: config,
      port: 0,
      logger: silentLogger,
    });
    kubectl?.dispose();
    kubectl = new KubectlSession(server.url);
    return kubectl;
  }
  async function stop(): Promise<void> {
    await server?.close();
    server = undefined;
  }

  beforeAll(async () => {
    const k = await start(writeConfig('key1.yaml', [{ name: 'key1', secret: key1 }]));
    expect((await k.run(['create', 'namespace', ns])).code).toBe(0);
  });
  afterAll(async () => {
    await stop();
    kubectl?.dispose();
    dir.remove();
  });

  it('stores a Secret encrypted with the first key, and kubectl reads it back in plaintext', async () => {
    const k = kubectl!;
    const created = await k.run([
      'create',
      'secret',
      'generic',
      'db',
      '-n',
      ns,
      '--from-literal=password=hunter2',
    ]);
    expect(created.stderr).toBe('');
    await k.run(['create', 'configmap', 'plain', '-n', ns, '--from-literal=a=visible']);
    // A Secret in another namespace the rotation below forgets to rewrite.
    expect((await k.run(['create', 'namespace', `${ns}-old`])).code).toBe(0);
    const forgotten = ['create', 'secret', 'generic', 'forgotten', '-n', `${ns}-old`];
    expect((await k.run([...forgotten, '--from-literal=p=old'])).code).toBe(0);
    const read = await k.run(['get', 'secret', 'db', '-n', ns, '-o', 'jsonpath={.data.password}']);
    expect(Buffer.from(read.stdout, 'base64').toString()).toBe('hunter2');
    await stop();
    const bytes = stored(`/registry/secrets/${ns}/db`);
    expect(bytes.subarray(0, 23).toString()).toBe('k8s:enc:aescbc:v1:key1:');
    expect(bytes.includes('hunter2')).toBe(false);
    expect(bytes.includes(Buffer.from('hunter2').toString('base64'))).toBe(false);
    // Resources the configuration does not name stay JSON.
    expect(stored(`/registry/configmaps/${ns}/plain`).toString()).toContain('visible');
  });

  it('rotates: with a new key first, `kubectl replace` of a Secret as it is re-encrypts it with that key', async () => {
    const k = await start(
      writeConfig('rotated.yaml', [
        { name: 'key2', secret: key2 },
        { name: 'key1', secret: key1 },
      ]),
    );
    const current = await k.run(['get', 'secret', 'db', '-n', ns, '-o', 'json']);
    expect(current.code).toBe(0);
    const file = k.write('secret.json', current.stdout);
    const replaced = await k.run(['replace', '-f', file]);
    expect(replaced.stderr).toBe('');
    expect(replaced.stdout).toContain('secret/db replaced');
    const read = await k.run(['get', 'secret', 'db', '-n', ns, '-o', 'jsonpath={.data.password}']);
    expect(Buffer.from(read.stdout, 'base64').toString()).toBe('hunter2');
    await stop();
    expect(stored(`/registry/secrets/${ns}/db`).subarray(0, 23).toString()).toBe(
      'k8s:enc:aescbc:v1:key2:',
    );
  });

  it('restarted without the old key it starts and serves; a value only that key read is a 500 for that object alone (kube 1.32: GET and a LIST over it fail naming it)', async () => {
    // The rotation's history (db's first version) and a Secret never rewritten are readable
    // by key1 alone. The watch cache used to replay that history and re-initialize forever.
    const k = await start(writeConfig('key2-only.yaml', [{ name: 'key2', secret: key2 }]));
    const read = await k.run(['get', 'secret', 'db', '-n', ns, '-o', 'jsonpath={.data.password}']);
    expect(Buffer.from(read.stdout, 'base64').toString()).toBe('hunter2');
    // From the watch cache too (resourceVersion=0), and a LIST of the namespace with it.
    const listed = await k.run(['get', 'secrets', '-n', ns, '-o', 'name']);
    expect(listed.stdout.trim()).toBe('secret/db');
    expect((await k.run(['get', 'configmap', 'plain', '-n', ns])).code).toBe(0);
    const lost = await k.run(['get', 'secret', 'forgotten', '-n', `${ns}-old`]);
    expect(lost.code).not.toBe(0);
    expect(lost.stderr).toContain(
      `Error from server (InternalError): Internal error occurred: corrupt object at /registry/secrets/${ns}-old/forgotten: data from the storage is not transformable or decodable: unable to transform stored value: no matching prefix found`,
    );
    const api = `${server!.url}/api/v1/namespaces/${ns}-old/secrets`;
    for (const url of [`${api}/forgotten`, `${api}/forgotten?resourceVersion=0`]) {
      const res = await fetch(url);
      expect(res.status).toBe(500);
      expect(await res.json()).toMatchObject({ reason: 'InternalError', code: 500 });
    }
    for (const url of [api, `${api}?resourceVersion=0`]) {
      const res = await fetch(url);
      expect(res.status).toBe(500);
      expect(((await res.json()) as { message: string }).message).toContain(
        `data from the storage is not transformable or decodable at: /registry/secrets/${ns}-old/forgotten`,
      );
    }
    // A watch of Secrets starts (it skips what does not decode) and sees new ones.
    const watch = await fetch(`${server!.url}/api/v1/secrets?watch=1&resourceVersion=0`);
    expect(watch.status).toBe(200);
    await watch.body?.cancel();
  });

  it('refuses to start with a configuration it cannot use, naming the problem but not the key', async () => {
    const short = randomBytes(7).toString('base64');
    const config = writeConfig('bad.yaml', [{ name: 'key1', secret: short }]);
    await expect(
      startApiServer({
        storageBackend: 'memory',
        encryptionProviderConfig: config,
        port: 0,
        logger: silentLogger,
      }),
    ).rejects.toThrow(/secret is not of the expected length, got 7/);
    await expect(
      startApiServer({
        storageBackend: 'memory',
        encryptionProviderConfig: config,
        port: 0,
        logger: silentLogger,
      }),
    ).rejects.not.toThrow(short);
  });
});
