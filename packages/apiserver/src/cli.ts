import { parseDuration, tryParseBool } from '@listwatch/api';
import { STORAGE_BACKENDS, type StorageBackend } from '@listwatch/storage';
import { AUTHORIZATION_MODES, type AuthorizationMode } from './authorization/authorizer.js';
import type { ApiServerOptions } from './server.js';
import { CORS_ALLOWED_ORIGINS_HELP, validateCorsAllowedOrigins } from './middleware/cors.js';
import { TLS_VERSIONS, tlsCipherSuites, tlsMinVersion } from './tls-options.js';

interface Flag {
  name: string;
  help: string;
  default?: string;
  /** The value of the flag given alone (`--flag`, pflag's NoOptDefVal); else it takes one. */
  bare?: string;
  apply(options: ApiServerOptions, value: string, files: Record<string, string>): void;
}

function int(name: string, value: string): number {
  if (!/^\d+$/.test(value))
    throw new Error(`invalid value "${value}" for flag --${name}: must be a non-negative integer`);
  return Number(value);
}

function flagBool(name: string, value: string): boolean {
  const parsed = tryParseBool(value);
  if (parsed === undefined)
    throw new Error(`invalid value "${value}" for flag --${name}: must be true or false`);
  return parsed;
}

/** kube-apiserver's flag names, for what this server implements. */
export const FLAGS: readonly Flag[] = [
  {
    name: 'bind-address',
    default: '127.0.0.1',
    help: 'The IP address on which to listen.',
    apply: (o, v) => (o.bindAddress = v),
  },
  {
    name: 'port',
    default: '8080',
    help: 'The port to serve on (TLS when --tls-cert-file and --tls-private-key-file are set). 0 picks a free port.',
    apply: (o, v) => (o.port = int('port', v)),
  },
  {
    name: 'accept-hosts',
    help: 'Comma-separated regular expressions of host names to answer besides IP addresses and localhost (Host header) and to accept WebSocket pages from (Origin), e.g. ^my\\.host$.',
    apply: (o, v) => {
      o.acceptHosts = v.split(',').filter(Boolean);
      for (const pattern of o.acceptHosts) {
        try {
          new RegExp(pattern);
        } catch {
          throw new Error(
            `invalid value "${pattern}" for flag --accept-hosts: not a regular expression`,
          );
        }
      }
    },
  },
  {
    name: 'cors-allowed-origins',
    help: CORS_ALLOWED_ORIGINS_HELP,
    apply: (o, v) => {
      const patterns = v.split(',');
      const problems = validateCorsAllowedOrigins(patterns);
      if (problems.length > 0) throw new Error(problems.join('; '));
      o.corsAllowedOrigins = patterns;
    },
  },
  {
    name: 'tls-cert-file',
    help: 'PEM certificate: serve HTTPS with HTTP/2 (ALPN) and HTTP/1.1 on the same port.',
    apply: (_o, v, f) => (f['cert'] = v),
  },
  {
    name: 'tls-private-key-file',
    help: 'PEM private key matching --tls-cert-file.',
    apply: (_o, v, f) => (f['key'] = v),
  },
  {
    name: 'tls-min-version',
    default: 'VersionTLS12',
    help: `Minimum TLS version: ${Object.keys(TLS_VERSIONS).join(', ')}.`,
    apply: (o, v) => (o.tlsMinVersion = tlsMinVersion(v)),
  },
  {
    name: 'tls-cipher-suites',
    help: "Comma-separated TLS 1.2 cipher suites by their Go names (TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256, ...); TLS 1.3 suites are always on. Default: the TLS library's secure list.",
    apply: (o, v) => (o.tlsCiphers = tlsCipherSuites(v.split(',').filter(Boolean))),
  },
  {
    name: 'client-ca-file',
    help: 'PEM CA bundle: a TLS client certificate it signed authenticates as its CN, in the groups of its O.',
    apply: (_o, v, f) => (f['clientCA'] = v),
  },
  {
    name: 'token-auth-file',
    help: 'Static bearer tokens, one per line: token,user,uid,"group1,group2".',
    apply: (o, v) => (o.tokenAuthFile = v),
  },
  {
    name: 'anonymous-auth',
    default: 'true',
    help: 'Requests without credentials are system:anonymous (group system:unauthenticated); false: 401.',
    apply: (o, v) => (o.anonymousAuth = flagBool('anonymous-auth', v)),
  },
  {
    name: 'insecure-allow-anonymous-admin',
    default: 'false',
    bare: 'true',
    help: 'Serve off loopback (--bind-address) although requests without credentials may do anything (--anonymous-auth with AlwaysAllow, the defaults): anyone who reaches the port is cluster-admin. Without it such a server refuses to start. Not a kube-apiserver flag.',
    apply: (o, v) =>
      (o.insecureAllowAnonymousAdmin = flagBool('insecure-allow-anonymous-admin', v)),
  },
  {
    name: 'service-account-issuer',
    help: 'The "iss" of issued service-account tokens. Repeatable: the first signs, tokens from any are accepted. Enables service-account tokens.',
    apply: (o, v) => (o.serviceAccountIssuers = [...(o.serviceAccountIssuers ?? []), v]),
  },
  {
    name: 'service-account-key-file',
    help: 'PEM file of RSA or ECDSA keys (public, private or certificates) that verify service-account tokens. Repeatable. Default: the signing key, else --tls-private-key-file.',
    apply: (o, v) => (o.serviceAccountKeyFiles = [...(o.serviceAccountKeyFiles ?? []), v]),
  },
  {
    name: 'service-account-signing-key-file',
    help: 'PEM private key (RSA: RS256; ECDSA P-256/384/521: ES256/384/512) that signs the tokens of serviceaccounts/token (kubectl create token).',
    apply: (o, v) => (o.serviceAccountSigningKeyFile = v),
  },
  {
    name: 'service-account-jwks-uri',
    help: 'The jwks_uri of the issuer discovery document (/.well-known/openid-configuration, served for an https issuer). Default: https://<this server>/openid/v1/jwks.',
    apply: (o, v) => (o.serviceAccountJwksUri = v),
  },
  {
    name: 'api-audiences',
    help: 'Comma-separated audiences a service-account token must name one of, and that a TokenRequest gets by default. Default: the issuers.',
    apply: (o, v) =>
      (o.apiAudiences = [...(o.apiAudiences ?? []), ...v.split(',').filter(Boolean)]),
  },
  {
    name: 'authorization-mode',
    default: 'AlwaysAllow',
    help: `Comma-separated authorizers asked in turn: ${AUTHORIZATION_MODES.join(', ')}. RBAC enforces rbac.authorization.k8s.io/v1 roles and bindings.`,
    apply: (o, v) => {
      const modes = v.split(',').filter(Boolean);
      for (const mode of modes)
        if (!AUTHORIZATION_MODES.includes(mode as AuthorizationMode))
          throw new Error(
            `invalid value "${mode}" for flag --authorization-mode: one of ${AUTHORIZATION_MODES.join(', ')}`,
          );
      o.authorizationMode = modes as AuthorizationMode[];
    },
  },
  {
    name: 'max-watches-per-user',
    default: '0',
    help: 'Watches one user may hold open at once (HTTP and WebSocket); past it a watch is 429 with Retry-After. 0 (the default): no limit, as kube-apiserver, which has no such cap. Not a kube-apiserver flag.',
    apply: (o, v) => (o.maxWatchesPerUser = int('max-watches-per-user', v)),
  },
  {
    name: 'audit-log-path',
    help: 'Write audit.k8s.io/v1 Events here, one JSON line per request stage (RequestReceived, ResponseStarted for watches, ResponseComplete, Panic). - is standard output. Without --audit-policy-file every request is logged at level Metadata.',
    apply: (o, v) => (o.auditLogPath = v),
  },
  {
    name: 'audit-policy-file',
    help: "An audit.k8s.io/v1 Policy: the first rule matching a request gives its level (None, Metadata, Request: with the request's object, RequestResponse: and the response's) and the stages to omit; no rule matching: not logged. Secrets and tokens are never logged above Metadata.",
    apply: (o, v) => (o.auditPolicyFile = v),
  },
  {
    name: 'storage-backend',
    default: 'sqlite',
    help: `Storage: ${STORAGE_BACKENDS.join(', ')}. sqlite is durable and embedded; etcd3 needs --etcd-servers (which alone implies etcd3).`,
    apply: (o, v) => {
      if (!STORAGE_BACKENDS.includes(v as StorageBackend))
        throw new Error(
          `invalid value "${v}" for flag --storage-backend: one of ${STORAGE_BACKENDS.join(', ')}`,
        );
      o.storageBackend = v as StorageBackend;
    },
  },
  {
    name: 'encryption-provider-config',
    help: 'An apiserver.config.k8s.io/v1 EncryptionConfiguration (YAML or JSON): the resources it names (e.g. secrets) are stored encrypted by its first provider (aescbc, aesgcm, secretbox, identity) and read by any; rotate a key by listing the new one first and rewriting the objects.',
    apply: (o, v) => (o.encryptionProviderConfig = v),
  },
  {
    name: 'data-dir',
    default: './listwatch-data',
    help: 'Directory of the sqlite database file.',
    apply: (o, v) => (o.dataDir = v),
  },
  {
    name: 'etcd-servers',
    help: 'Comma-separated etcd client URLs; given without --storage-backend, the backend is etcd3.',
    apply: (o, v) => (o.etcdServers = v.split(',').filter(Boolean)),
  },
  {
    name: 'etcd-prefix',
    default: '/registry',
    help: 'The prefix of every key in storage.',
    apply: (o, v) => (o.etcdPrefix = v),
  },
  {
    name: 'etcd-compaction-interval',
    default: '5m',
    help: 'How often storage history is compacted, as a duration (2s, 5m, 1h); 0 disables.',
    apply: (o, v) => (o.etcdCompactionInterval = parseDuration(v)),
  },
  {
    name: 'default-watch-cache-size',
    help: 'Fixed event window per resource (default: adaptive, >= 75 s of history); 0 disables the watch cache.',
    apply: (o, v) => (o.defaultWatchCacheSize = int('default-watch-cache-size', v)),
  },
  {
    name: 'watch-cache-sizes',
    help: 'Per-resource window sizes: resource[.group]#size, comma-separated (e.g. pods#1000,deployments.apps#0).',
    apply: (o, v) => {
      o.watchCacheSizes = {};
      for (const part of v.split(',').filter(Boolean)) {
        const [resource, size] = part.split('#');
        if (!resource || size === undefined)
          throw new Error(`invalid value "${part}" for flag --watch-cache-sizes`);
        o.watchCacheSizes[resource] = int('watch-cache-sizes', size);
      }
    },
  },
  {
    name: 'watch-cache-list-encodings',
    default: 'true',
    help: "Keep cached objects' encodings between LISTs: faster LISTs for about the objects' JSON size in memory.",
    apply: (o, v) => (o.watchCacheListEncodings = flagBool('watch-cache-list-encodings', v)),
  },
  {
    name: 'min-request-timeout',
    default: '1800',
    help: 'Seconds; a watch without timeoutSeconds lasts between this and twice this.',
    apply: (o, v) => (o.minRequestTimeoutSeconds = int('min-request-timeout', v)),
  },
  {
    name: 'request-timeout',
    default: '1m0s',
    help: 'How long a request that is not a watch may take: its body must arrive within it (else 408, connection closed) and its answer start within it (else 504; a shorter ?timeout= applies).',
    apply: (o, v) => (o.requestTimeout = parseDuration(v)),
  },
  {
    name: 'max-requests-inflight',
    default: '400',
    help: 'Read-only requests served at once before 429 (watches excluded); 0: no limit.',
    apply: (o, v) => (o.maxRequestsInflight = int('max-requests-inflight', v)),
  },
  {
    name: 'max-mutating-requests-inflight',
    default: '200',
    help: 'Mutating requests served at once before 429; 0: no limit.',
    apply: (o, v) => (o.maxMutatingRequestsInflight = int('max-mutating-requests-inflight', v)),
  },
];

export function usage(): string {
  const lines = [
    'Usage: pnpm apiserver [flags]',
    '',
    'A Kubernetes-compatible API server (list, watch, CRUD, discovery).',
    '',
    'Flags:',
  ];
  for (const flag of FLAGS) {
    lines.push(`  --${flag.name}${flag.default !== undefined ? ` (default ${flag.default})` : ''}`);
    lines.push(`      ${flag.help}`);
  }
  lines.push('  --log-level debug|info|warn|error (default info)', '  -h, --help');
  return lines.join('\n');
}

export interface ParsedArgs {
  help: boolean;
  options: ApiServerOptions;
  files: { cert?: string; key?: string; clientCA?: string };
  logLevel: string;
}

/**
 * The arguments a command was given, without the literal `--` that `pnpm <script> -- <flags>`
 * (and older pnpm versions' script forwarding) puts before them.
 */
export function commandArgs(argv: readonly string[]): string[] {
  return argv[0] === '--' ? argv.slice(1) : [...argv];
}

/** Parses `--flag=value` and `--flag value`; unknown flags are errors, as with kube-apiserver. */
export function parseArgs(args: readonly string[]): ParsedArgs {
  const argv = commandArgs(args);
  const options: ApiServerOptions = {};
  const files: Record<string, string> = {};
  let logLevel = 'info';
  let help = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '-h' || arg === '--help') {
      help = true;
      continue;
    }
    if (!arg.startsWith('--')) throw new Error(`unexpected argument "${arg}"`);
    const [name, inline] = arg.slice(2).split(/=(.*)/s, 2) as [string, string | undefined];
    const flag = FLAGS.find((f) => f.name === name);
    if (!flag && name !== 'log-level') throw new Error(`unknown flag: --${name}`);
    let value = inline ?? flag?.bare;
    if (value === undefined) {
      value = argv[++i];
      if (value === undefined) throw new Error(`flag needs an argument: --${name}`);
    }
    if (!flag) {
      logLevel = value;
      continue;
    }
    flag.apply(options, value, files);
  }
  // kube-apiserver's storage is etcd: --etcd-servers alone means etcd3, not the sqlite default.
  if (options.etcdServers?.length && options.storageBackend === undefined)
    options.storageBackend = 'etcd3';
  return { help, options, files, logLevel };
}
