import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './temp-dir.js';

export interface IssuedCertificate {
  cert: string;
  key: string;
  /** Paths of the same PEMs, for kubeconfig file references. */
  certFile: string;
  keyFile: string;
}

export interface IssueOptions {
  /** `/CN=alice/O=dev/O=ops`, UTF-8; a backslash escapes `/`, `+` and itself. */
  subject: string;
  /** openssl extension lines, e.g. `extendedKeyUsage=clientAuth`. */
  extensions?: string;
  /** Validity as openssl ca takes it (`YYYYMMDDHHMMSSZ`), e.g. in the past for an expired one. */
  notBefore?: string;
  notAfter?: string;
}

/**
 * A throwaway certificate authority made with the openssl CLI in a temp dir (EC keys: fast),
 * issuing server and client certificates, expired ones included.
 */
export class TestCa {
  readonly cert: string;
  readonly certFile: string;
  private readonly dir = tempDir('listwatch-ca-');
  private issued = 0;

  constructor(name = 'listwatch-test-ca') {
    const dir = this.dir.path;
    this.openssl('ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', 'ca.key');
    this.openssl(
      'req',
      '-x509',
      '-new',
      '-key',
      'ca.key',
      '-subj',
      `/CN=${name}`,
      '-days',
      '2',
      '-out',
      'ca.crt',
    );
    writeFileSync(join(dir, 'index.txt'), '');
    writeFileSync(join(dir, 'serial'), '1000\n');
    writeFileSync(
      join(dir, 'ca.cnf'),
      [
        '[ca]',
        'default_ca = ca_default',
        '[ca_default]',
        'database = index.txt',
        'new_certs_dir = .',
        'serial = serial',
        'default_md = sha256',
        'default_days = 2',
        'policy = any',
        'unique_subject = no',
        '[any]',
        'commonName = supplied',
        'organizationName = optional',
        '',
      ].join('\n'),
    );
    this.certFile = join(dir, 'ca.crt');
    this.cert = readFileSync(this.certFile, 'utf8');
  }

  private openssl(...args: string[]): void {
    execFileSync('openssl', args, { cwd: this.dir.path, stdio: 'pipe' });
  }

  issue(options: IssueOptions): IssuedCertificate {
    const name = `cert${this.issued++}`;
    const dir = this.dir.path;
    this.openssl('ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', `${name}.key`);
    this.openssl(
      'req',
      '-new',
      '-utf8',
      '-key',
      `${name}.key`,
      '-subj',
      options.subject,
      '-out',
      `${name}.csr`,
    );
    writeFileSync(join(dir, `${name}.ext`), `${options.extensions ?? ''}\n`);
    this.openssl(
      'ca',
      '-batch',
      '-utf8',
      '-notext',
      '-config',
      'ca.cnf',
      '-cert',
      'ca.crt',
      '-keyfile',
      'ca.key',
      '-in',
      `${name}.csr`,
      '-out',
      `${name}.crt`,
      '-extfile',
      `${name}.ext`,
      ...(options.notBefore ? ['-startdate', options.notBefore] : []),
      ...(options.notAfter ? ['-enddate', options.notAfter] : []),
    );
    const certFile = join(dir, `${name}.crt`);
    const keyFile = join(dir, `${name}.key`);
    return {
      cert: readFileSync(certFile, 'utf8'),
      key: readFileSync(keyFile, 'utf8'),
      certFile,
      keyFile,
    };
  }

  /** A server certificate for 127.0.0.1, localhost and any other `dnsNames`. */
  server(dnsNames: readonly string[] = []): IssuedCertificate {
    const names = ['localhost', ...dnsNames].map((n) => `DNS:${n}`).join(',');
    return this.issue({
      subject: '/CN=listwatch-test-server',
      extensions: `subjectAltName=IP:127.0.0.1,${names}\nextendedKeyUsage=serverAuth`,
    });
  }

  /** A client certificate: user `name`, groups `groups` (kube reads CN and O). */
  client(
    name: string,
    groups: readonly string[] = [],
    validity: Pick<IssueOptions, 'notBefore' | 'notAfter'> = {},
  ): IssuedCertificate {
    return this.issue({
      subject: `/CN=${name}${groups.map((g) => `/O=${g}`).join('')}`,
      extensions: 'extendedKeyUsage=clientAuth',
      ...validity,
    });
  }

  remove(): void {
    this.dir.remove();
  }
}
