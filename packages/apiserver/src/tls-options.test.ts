import { silentLogger } from '@listwatch/api';
import { TestCa } from '@listwatch/testing';
import { MemoryStorage } from '@listwatch/storage';
import { connect, type SecureVersion } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FLAGS } from './cli.js';
import { startApiServer, type RunningApiServer } from './server.js';
import { tlsCipherSuites, tlsMinVersion } from './tls-options.js';

// kube-apiserver's --tls-min-version and --tls-cipher-suites
// (k8s.io/component-base/cli/flag/ciphersuites_flag.go), against real TLS handshakes.

/** The protocol and cipher a real TLS client agrees on, or the handshake's error. */
function handshake(
  url: string,
  ca: string,
  options: { minVersion?: SecureVersion; maxVersion?: SecureVersion; ciphers?: string } = {},
): Promise<{ protocol: string | null; cipher: string } | Error> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({
      host: hostname,
      port: Number(port),
      ca,
      servername: 'localhost',
      ...options,
    });
    socket.once('secureConnect', () => {
      resolve({ protocol: socket.getProtocol(), cipher: socket.getCipher().name });
      socket.end();
    });
    socket.once('error', (err) => resolve(err));
  });
}

describe('TLS versions and cipher suites', () => {
  const ca = new TestCa();
  const serving = ca.server();
  const servers: RunningApiServer[] = [];
  const start = async (tls: { tlsMinVersion?: SecureVersion; tlsCiphers?: string } = {}) => {
    const server = await startApiServer({
      storage: new MemoryStorage({ compactionInterval: 0 }),
      port: 0,
      logger: silentLogger,
      tlsCert: serving.cert,
      tlsKey: serving.key,
      ...tls,
    });
    servers.push(server);
    return server.url;
  };
  let byDefault: string;
  beforeAll(async () => {
    byDefault = await start();
  });
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.close()));
    ca.remove();
  });

  /** A TLS 1.1 client that OpenSSL itself would let through (security level 0 on its side). */
  const tls11 = {
    minVersion: 'TLSv1',
    maxVersion: 'TLSv1.1',
    ciphers: 'DEFAULT:@SECLEVEL=0',
  } as const;

  it('refuses TLS 1.1 and below by default (VersionTLS12), and negotiates TLS 1.3', async () => {
    expect(await handshake(byDefault, ca.cert, tls11)).toBeInstanceOf(Error);
    expect(await handshake(byDefault, ca.cert)).toMatchObject({ protocol: 'TLSv1.3' });
    expect(await handshake(byDefault, ca.cert, { maxVersion: 'TLSv1.2' })).toMatchObject({
      protocol: 'TLSv1.2',
    });
  });

  it('--tls-min-version VersionTLS11 serves a TLS 1.1 client, as Go does', async () => {
    const url = await start({ tlsMinVersion: tlsMinVersion('VersionTLS11') });
    expect(await handshake(url, ca.cert, tls11)).toMatchObject({ protocol: 'TLSv1.1' });
    expect(await handshake(url, ca.cert)).toMatchObject({ protocol: 'TLSv1.3' });
  });

  it('--tls-min-version VersionTLS13 refuses a TLS 1.2 client', async () => {
    const url = await start({ tlsMinVersion: tlsMinVersion('VersionTLS13') });
    expect(await handshake(url, ca.cert, { maxVersion: 'TLSv1.2' })).toBeInstanceOf(Error);
    expect(await handshake(url, ca.cert)).toMatchObject({ protocol: 'TLSv1.3' });
  });

  it('--tls-cipher-suites limits TLS 1.2 to the suites named, keeping TLS 1.3', async () => {
    const url = await start({
      tlsCiphers: tlsCipherSuites(['TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384']),
    });
    expect(await handshake(url, ca.cert, { maxVersion: 'TLSv1.2' })).toMatchObject({
      cipher: 'ECDHE-ECDSA-AES256-GCM-SHA384',
    });
    expect(
      await handshake(url, ca.cert, {
        maxVersion: 'TLSv1.2',
        ciphers: 'ECDHE-ECDSA-AES128-GCM-SHA256',
      }),
    ).toBeInstanceOf(Error);
    expect(await handshake(url, ca.cert)).toMatchObject({ protocol: 'TLSv1.3' });
  });

  it('refuses unknown versions and suites with the flag named, as kube-apiserver', () => {
    const flag = (name: string) => FLAGS.find((f) => f.name === name)!;
    expect(() => flag('tls-min-version').apply({}, 'VersionTLS14', {})).toThrow(
      'invalid value "VersionTLS14" for flag --tls-min-version',
    );
    expect(() => flag('tls-cipher-suites').apply({}, 'TLS_RSA_WITH_RC4_128_SHA', {})).toThrow(
      "Cipher suite TLS_RSA_WITH_RC4_128_SHA not supported or doesn't exist",
    );
  });
});
