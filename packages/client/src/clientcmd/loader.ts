import { isAbsolute, join, sep } from 'node:path';
import { isRecord } from '@listwatch/api';
import { parse as parseYaml } from 'yaml';
import { opt } from '../util/optional-property.js';
import type { ExecConfig } from './exec-credential.js';
import { KubeConfigError } from './kubeconfig-error.js';
import type {
  KubeConfigCluster,
  KubeConfigContext,
  KubeConfigData,
  KubeConfigUser,
} from './types.js';

// Reading kubeconfig files (k8s.io/client-go tools/clientcmd/loader.go): parsing one (Load),
// making its file references absolute (ResolveLocalPaths) and merging several as kubectl does
// (ClientConfigLoadingRules.Load). Turning the result into a client is kubeconfig.ts.

type Raw = Record<string, unknown>;

function str(raw: Raw, key: string, where: string): string | undefined {
  const value = raw[key];
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') throw new KubeConfigError(`${where}: ${key} must be a string`);
  return value;
}

function bool(raw: Raw, key: string, where: string): boolean | undefined {
  const value = raw[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'boolean') throw new KubeConfigError(`${where}: ${key} must be a boolean`);
  return value;
}

/** The named entries of a list (`clusters: [{name, cluster: {...}}]`). */
function named(raw: Raw, list: string, field: string, where: string): [string, Raw][] {
  const value = raw[list];
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new KubeConfigError(`${where}: ${list} must be a list`);
  return value.map((entry: unknown, i) => {
    if (!isRecord(entry) || typeof entry.name !== 'string' || entry.name === '') {
      throw new KubeConfigError(`${where}: ${list}[${i}] has no name`);
    }
    const body = entry[field] ?? {};
    if (!isRecord(body))
      throw new KubeConfigError(`${where}: ${list}[${i}].${field} must be a map`);
    return [entry.name, body];
  });
}

function parseCluster(name: string, raw: Raw, where: string): KubeConfigCluster {
  const w = `${where}: cluster ${JSON.stringify(name)}`;
  let execExtension: unknown;
  const extensions = raw.extensions;
  if (Array.isArray(extensions)) {
    for (const ext of extensions as unknown[]) {
      if (isRecord(ext) && ext.name === 'client.authentication.k8s.io/exec')
        execExtension = ext.extension;
    }
  }
  return {
    name,
    server: str(raw, 'server', w) ?? '',
    ...opt('certificateAuthority', str(raw, 'certificate-authority', w)),
    ...opt('certificateAuthorityData', str(raw, 'certificate-authority-data', w)),
    ...opt('insecureSkipTlsVerify', bool(raw, 'insecure-skip-tls-verify', w)),
    ...opt('tlsServerName', str(raw, 'tls-server-name', w)),
    ...opt('proxyUrl', str(raw, 'proxy-url', w)),
    ...opt('execExtension', execExtension),
  };
}

const INTERACTIVE_MODES = ['Never', 'IfAvailable', 'Always'] as const;

function parseExec(raw: unknown, where: string): ExecConfig | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (!isRecord(raw)) throw new KubeConfigError(`${where}: exec must be a map`);
  const command = str(raw, 'command', where);
  if (command === undefined) throw new KubeConfigError(`${where}: exec.command is required`);
  const args = raw.args ?? [];
  if (!Array.isArray(args) || args.some((a) => typeof a !== 'string')) {
    throw new KubeConfigError(`${where}: exec.args must be a list of strings`);
  }
  const env = raw.env ?? [];
  if (
    !Array.isArray(env) ||
    env.some((e) => !isRecord(e) || typeof e.name !== 'string' || typeof e.value !== 'string')
  ) {
    throw new KubeConfigError(`${where}: exec.env must be a list of {name, value} strings`);
  }
  const modeText = str(raw, 'interactiveMode', where);
  const mode = INTERACTIVE_MODES.find((m) => m === modeText);
  if (modeText !== undefined && mode === undefined) {
    throw new KubeConfigError(
      `${where}: exec.interactiveMode ${JSON.stringify(modeText)} is not supported`,
    );
  }
  return {
    apiVersion: str(raw, 'apiVersion', where) ?? '',
    command,
    args: args as string[],
    env: env as { name: string; value: string }[],
    ...opt('installHint', str(raw, 'installHint', where)),
    ...opt('provideClusterInfo', bool(raw, 'provideClusterInfo', where)),
    ...opt('interactiveMode', mode),
  };
}

function parseUser(name: string, raw: Raw, where: string): KubeConfigUser {
  const w = `${where}: user ${JSON.stringify(name)}`;
  return {
    name,
    ...opt('token', str(raw, 'token', w)),
    ...opt('tokenFile', str(raw, 'tokenFile', w)),
    ...opt('clientCertificate', str(raw, 'client-certificate', w)),
    ...opt('clientCertificateData', str(raw, 'client-certificate-data', w)),
    ...opt('clientKey', str(raw, 'client-key', w)),
    ...opt('clientKeyData', str(raw, 'client-key-data', w)),
    ...opt('username', str(raw, 'username', w)),
    ...opt('password', str(raw, 'password', w)),
    ...opt('exec', parseExec(raw.exec, w)),
  };
}

function parseContext(name: string, raw: Raw, where: string): KubeConfigContext {
  const w = `${where}: context ${JSON.stringify(name)}`;
  return {
    name,
    cluster: str(raw, 'cluster', w) ?? '',
    user: str(raw, 'user', w) ?? '',
    ...opt('namespace', str(raw, 'namespace', w)),
  };
}

/** Makes relative file references absolute against `base` (clientcmd ResolveLocalPaths). */
export function resolvePaths(config: KubeConfigData, base: string): void {
  const abs = (p: string | undefined): string | undefined =>
    p === undefined || isAbsolute(p) ? p : join(base, p);
  config.clusters = config.clusters.map((c) => ({
    ...c,
    ...opt('certificateAuthority', abs(c.certificateAuthority)),
  }));
  config.users = config.users.map((u) => ({
    ...u,
    ...opt('clientCertificate', abs(u.clientCertificate)),
    ...opt('clientKey', abs(u.clientKey)),
    ...opt('tokenFile', abs(u.tokenFile)),
    // A bare command name is looked up on PATH; only a path with a separator is file-relative.
    ...(u.exec && u.exec.command.includes(sep)
      ? { exec: { ...u.exec, command: abs(u.exec.command) ?? u.exec.command } }
      : {}),
  }));
}

/** Parses kubeconfig YAML (or JSON). `where` names the source in errors. */
export function parseKubeConfig(text: string, where = 'kubeconfig'): KubeConfigData {
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (err) {
    throw new KubeConfigError(`${where}: ${(err as Error).message}`, { cause: err });
  }
  // An empty file is an empty config, as in clientcmd.Load.
  if (doc === null || doc === undefined) {
    return { clusters: [], users: [], contexts: [], currentContext: '' };
  }
  if (!isRecord(doc)) throw new KubeConfigError(`${where}: not a kubeconfig map`);
  return {
    clusters: named(doc, 'clusters', 'cluster', where).map(([n, r]) => parseCluster(n, r, where)),
    users: named(doc, 'users', 'user', where).map(([n, r]) => parseUser(n, r, where)),
    contexts: named(doc, 'contexts', 'context', where).map(([n, r]) => parseContext(n, r, where)),
    currentContext: str(doc, 'current-context', where) ?? '',
  };
}

/**
 * kubectl's merge of several kubeconfigs (clientcmd ClientConfigLoadingRules.Load): the first
 * file to define a cluster, user or context name wins, whole — a second `red-user` is ignored
 * even for fields the first one lacks — and current-context comes from the first file that
 * sets one.
 */
export function mergeKubeConfigs(configs: readonly KubeConfigData[]): KubeConfigData {
  const pick = <T extends { name: string }>(lists: T[][]): T[] => {
    const seen = new Map<string, T>();
    for (const list of lists)
      for (const item of list) if (!seen.has(item.name)) seen.set(item.name, item);
    return [...seen.values()];
  };
  return {
    clusters: pick(configs.map((c) => c.clusters)),
    users: pick(configs.map((c) => c.users)),
    contexts: pick(configs.map((c) => c.contexts)),
    currentContext: configs.find((c) => c.currentContext !== '')?.currentContext ?? '',
  };
}
