import { DEFAULT_CIPHERS, type SecureVersion } from 'node:tls';

// `--tls-min-version` and `--tls-cipher-suites` as kube-apiserver takes them (Go's crypto/tls
// names; k8s.io/component-base/cli/flag/ciphersuites_flag.go), for Node's OpenSSL.

/** Go's version names; kube-apiserver's default minimum is VersionTLS12. */
export const TLS_VERSIONS: Readonly<Record<string, SecureVersion>> = {
  VersionTLS10: 'TLSv1',
  VersionTLS11: 'TLSv1.1',
  VersionTLS12: 'TLSv1.2',
  VersionTLS13: 'TLSv1.3',
};

/** Go's TLS 1.0–1.2 cipher suite names and OpenSSL's (crypto/tls cipher_suites.go). */
const CIPHER_SUITES: Readonly<Record<string, string>> = {
  TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256: 'ECDHE-ECDSA-AES128-GCM-SHA256',
  TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384: 'ECDHE-ECDSA-AES256-GCM-SHA384',
  TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256: 'ECDHE-RSA-AES128-GCM-SHA256',
  TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384: 'ECDHE-RSA-AES256-GCM-SHA384',
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305: 'ECDHE-ECDSA-CHACHA20-POLY1305',
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256: 'ECDHE-ECDSA-CHACHA20-POLY1305',
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305: 'ECDHE-RSA-CHACHA20-POLY1305',
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256: 'ECDHE-RSA-CHACHA20-POLY1305',
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA: 'ECDHE-ECDSA-AES128-SHA',
  TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA: 'ECDHE-ECDSA-AES256-SHA',
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA: 'ECDHE-RSA-AES128-SHA',
  TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA: 'ECDHE-RSA-AES256-SHA',
  TLS_RSA_WITH_AES_128_GCM_SHA256: 'AES128-GCM-SHA256',
  TLS_RSA_WITH_AES_256_GCM_SHA384: 'AES256-GCM-SHA384',
  TLS_RSA_WITH_AES_128_CBC_SHA: 'AES128-SHA',
  TLS_RSA_WITH_AES_256_CBC_SHA: 'AES256-SHA',
};

/** TLS 1.3's suites, which Go always enables whatever the flag lists. */
const TLS13_SUITES = [
  'TLS_AES_128_GCM_SHA256',
  'TLS_AES_256_GCM_SHA384',
  'TLS_CHACHA20_POLY1305_SHA256',
];

/** The Go version name as Node's, or an error worded as kube's flag parsing. */
export function tlsMinVersion(name: string): SecureVersion {
  const version = TLS_VERSIONS[name];
  if (!version)
    throw new Error(
      `invalid value "${name}" for flag --tls-min-version: one of ${Object.keys(TLS_VERSIONS).join(', ')}`,
    );
  return version;
}

/** The OpenSSL cipher list for Go suite names (TLS 1.3's always included). */
export function tlsCipherSuites(names: readonly string[]): string {
  const openssl = names.map((name) => {
    if (TLS13_SUITES.includes(name)) return name;
    const suite = CIPHER_SUITES[name];
    if (!suite) throw new Error(`Cipher suite ${name} not supported or doesn't exist`);
    return suite;
  });
  return [...new Set([...TLS13_SUITES, ...openssl])].join(':');
}

/**
 * The server's minimum version (kube's default VersionTLS12) and cipher list. OpenSSL 3 refuses
 * TLS 1.0 and 1.1 at its default security level (their handshakes sign with SHA-1), while Go's
 * crypto/tls serves them when the flag asks: a lower minimum lowers the level to 0 as well.
 */
export function tlsVersionAndCiphers(
  minVersion: SecureVersion = 'TLSv1.2',
  ciphers?: string,
): { minVersion: SecureVersion; ciphers?: string } {
  if (minVersion !== 'TLSv1' && minVersion !== 'TLSv1.1')
    return { minVersion, ...(ciphers !== undefined ? { ciphers } : {}) };
  return { minVersion, ciphers: `${ciphers ?? DEFAULT_CIPHERS}:@SECLEVEL=0` };
}
