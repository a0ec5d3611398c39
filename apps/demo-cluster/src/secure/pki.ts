import { execFile } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** A certificate and its key, as PEM. */
export interface KeyPair {
  cert: string;
  key: string;
}

/** The serving certificate's file name in the PKI directory (`<name>.crt`, `<name>.key`). */
export const SERVING = 'apiserver';

/**
 * The demo's certificate authority, made with the openssl CLI into a state directory at each
 * start, as kubeadm's `init phase certs` does into /etc/kubernetes/pki: a CA, the apiserver's
 * serving certificate and one client certificate per component (user = CN, groups = O, as the
 * apiserver's x509 authenticator reads them). Keys are EC P-256 and readable by the owner only.
 */
export class DemoPki {
  private serial = 0;

  private constructor(
    readonly dir: string,
    readonly ca: KeyPair,
  ) {}

  /** A fresh CA in `dir` (anything there before is replaced). */
  static async create(dir: string): Promise<DemoPki> {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    await openssl(dir, 'ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', 'ca.key');
    chmodSync(join(dir, 'ca.key'), 0o600);
    await openssl(
      dir,
      'req',
      '-x509',
      '-new',
      '-key',
      'ca.key',
      '-subj',
      '/CN=listwatch-demo-ca',
      '-days',
      '365',
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
      '-out',
      'ca.crt',
    );
    return new DemoPki(dir, {
      cert: readFileSync(join(dir, 'ca.crt'), 'utf8'),
      key: readFileSync(join(dir, 'ca.key'), 'utf8'),
    });
  }

  /** The apiserver's serving certificate: 127.0.0.1, ::1 and localhost. */
  serving(): Promise<KeyPair> {
    return this.issue(
      SERVING,
      '/CN=kube-apiserver',
      'subjectAltName=IP:127.0.0.1,IP:::1,DNS:localhost\nextendedKeyUsage=serverAuth\nkeyUsage=critical,digitalSignature',
    );
  }

  /** A client certificate for user `user` in `groups`; `file` names its files. */
  client(file: string, user: string, groups: readonly string[] = []): Promise<KeyPair> {
    const subject = `/CN=${escape(user)}${groups.map((g) => `/O=${escape(g)}`).join('')}`;
    return this.issue(
      file,
      subject,
      'extendedKeyUsage=clientAuth\nkeyUsage=critical,digitalSignature',
    );
  }

  private async issue(file: string, subject: string, extensions: string): Promise<KeyPair> {
    const dir = this.dir;
    const ext = `${file}.ext`;
    writeFileSync(join(dir, ext), `${extensions}\n`);
    await openssl(
      dir,
      'req',
      '-new',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      `${file}.key`,
      '-subj',
      subject,
      '-out',
      `${file}.csr`,
    );
    chmodSync(join(dir, `${file}.key`), 0o600);
    await openssl(
      dir,
      'x509',
      '-req',
      '-in',
      `${file}.csr`,
      '-CA',
      'ca.crt',
      '-CAkey',
      'ca.key',
      '-set_serial',
      String(Date.now() * 1000 + ++this.serial),
      '-days',
      '365',
      '-sha256',
      '-extfile',
      ext,
      '-out',
      `${file}.crt`,
    );
    rmSync(join(dir, `${file}.csr`));
    rmSync(join(dir, ext));
    return {
      cert: readFileSync(join(dir, `${file}.crt`), 'utf8'),
      key: readFileSync(join(dir, `${file}.key`), 'utf8'),
    };
  }
}

/** openssl's -subj syntax: `/` and `+` separate, so they (and `\`) are escaped in a value. */
function escape(value: string): string {
  return value.replace(/[\\/+]/g, (c) => `\\${c}`);
}

async function openssl(cwd: string, ...args: string[]): Promise<void> {
  await run('openssl', args, { cwd });
}

/**
 * A kubeconfig with everything embedded (certificate-authority-data, client-certificate-data,
 * client-key-data), as kubeadm's admin.conf, written readable by the owner only.
 */
export function writeKubeconfig(
  path: string,
  server: string,
  ca: string,
  user: { name: string } & KeyPair,
): void {
  const b64 = (pem: string) => Buffer.from(pem).toString('base64');
  writeFileSync(
    path,
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters:',
      '- name: listwatch-demo',
      '  cluster:',
      `    server: ${server}`,
      `    certificate-authority-data: ${b64(ca)}`,
      'users:',
      `- name: ${user.name}`,
      '  user:',
      `    client-certificate-data: ${b64(user.cert)}`,
      `    client-key-data: ${b64(user.key)}`,
      'contexts:',
      `- name: ${user.name}@listwatch-demo`,
      '  context:',
      '    cluster: listwatch-demo',
      `    user: ${user.name}`,
      `current-context: ${user.name}@listwatch-demo`,
      '',
    ].join('\n'),
    { mode: 0o600 },
  );
  chmodSync(path, 0o600);
}
