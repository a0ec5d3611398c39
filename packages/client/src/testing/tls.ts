import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '@listwatch/testing';

export interface TestPki {
  dir: string;
  ca: string;
  serverCert: string;
  serverKey: string;
  clientCert: string;
  clientKey: string;
  /** Another client certificate (CN=rotated-user), as a credential plugin hands out on rotation. */
  rotatedClientCert: string;
  rotatedClientKey: string;
  /** Paths of the same PEMs, for kubeconfig file references. */
  files: { ca: string; clientCert: string; clientKey: string };
  remove(): void;
}

function openssl(cwd: string, ...args: string[]): void {
  execFileSync('openssl', args, { cwd, stdio: 'pipe' });
}

/**
 * A throwaway CA with a server certificate for 127.0.0.1/localhost and a client certificate
 * (CN=test-user), made with the openssl CLI in a temp dir. EC keys: fast to generate.
 */
export function makeTestPki(): TestPki {
  const tmp = tempDir('listwatch-pki-');
  const dir = tmp.path;
  const key = (name: string) =>
    openssl(dir, 'ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', name);
  key('ca.key');
  openssl(
    dir,
    'req',
    '-x509',
    '-new',
    '-key',
    'ca.key',
    '-subj',
    '/CN=listwatch-test-ca',
    '-days',
    '2',
    '-out',
    'ca.crt',
  );
  const sign = (name: string, subject: string, ext: string) => {
    key(`${name}.key`);
    openssl(dir, 'req', '-new', '-key', `${name}.key`, '-subj', subject, '-out', `${name}.csr`);
    writeFileSync(join(dir, `${name}.ext`), ext);
    openssl(
      dir,
      'x509',
      '-req',
      '-in',
      `${name}.csr`,
      '-CA',
      'ca.crt',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-days',
      '2',
      '-extfile',
      `${name}.ext`,
      '-out',
      `${name}.crt`,
    );
  };
  sign(
    'server',
    '/CN=listwatch-test-server',
    'subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:apiserver.test\nextendedKeyUsage=serverAuth\n',
  );
  sign('client', '/CN=test-user/O=system:masters', 'extendedKeyUsage=clientAuth\n');
  sign('rotated', '/CN=rotated-user', 'extendedKeyUsage=clientAuth\n');
  const read = (name: string) => readFileSync(join(dir, name), 'utf8');
  return {
    dir,
    ca: read('ca.crt'),
    serverCert: read('server.crt'),
    serverKey: read('server.key'),
    clientCert: read('client.crt'),
    clientKey: read('client.key'),
    rotatedClientCert: read('rotated.crt'),
    rotatedClientKey: read('rotated.key'),
    files: {
      ca: join(dir, 'ca.crt'),
      clientCert: join(dir, 'client.crt'),
      clientKey: join(dir, 'client.key'),
    },
    remove: () => tmp.remove(),
  };
}
