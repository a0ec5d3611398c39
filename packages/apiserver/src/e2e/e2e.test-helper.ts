import type { KubeObject } from '@listwatch/api';
import { MemoryStorage } from '@listwatch/storage';
import {
  curl,
  eventually,
  KUBECTL,
  KubectlSession,
  runProgram,
  RunningProcess,
  silentLogger,
  spawnCurl,
  tempDir,
  type ProcessResult,
} from '@listwatch/testing';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { stringify } from 'yaml';
import { startApiServer, type ApiServerOptions, type RunningApiServer } from '../server.js';

// Shared by the end-to-end tests: a real apiserver on loopback, and real clients (kubectl 1.32,
// curl) run as a new user would run them — a kubeconfig, a HOME and a discovery cache of their own.

export { curl, eventually, KUBECTL, KubectlSession, RunningProcess, spawnCurl, type ProcessResult };

/** One apiserver per test file: in-memory storage, a random loopback port, silent logs. */
export function startE2eServer(options: ApiServerOptions = {}): Promise<RunningApiServer> {
  return startApiServer({
    storage: new MemoryStorage({ compactionInterval: 0 }),
    port: 0,
    logger: silentLogger,
    ...options,
  });
}

let names = 0;
/** A name no other test of this run uses (namespaces, objects). */
export function uniqueName(prefix: string): string {
  return `${prefix}-${process.pid % 1000}-${names++}`;
}

export interface SelfSignedCert {
  cert: string;
  key: string;
}

/** A throwaway self-signed certificate for 127.0.0.1, made with openssl in a temp dir. */
export async function selfSignedCert(): Promise<SelfSignedCert> {
  const dir = tempDir('listwatch-tls-');
  try {
    const keyFile = join(dir.path, 'key.pem');
    const certFile = join(dir.path, 'cert.pem');
    const result = await runProgram('openssl', [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-days',
      '1',
      '-keyout',
      keyFile,
      '-out',
      certFile,
    ]);
    if (result.code !== 0) throw new Error(`openssl failed: ${result.stderr}`);
    return { cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8') };
  } finally {
    dir.remove();
  }
}

/** Splits curl `-i` output into its response blocks' status lines, headers and the body. */
export function parseCurlResponse(output: string): {
  statusLines: string[];
  headers: Map<string, string>;
  body: string;
} {
  const statusLines: string[] = [];
  const headers = new Map<string, string>();
  let rest = output;
  // curl -i prints every response head (100 Continue too), each ending with a blank line; after a
  // 101 come the upgraded protocol's bytes.
  while (/^HTTP\/[\d.]+ \d{3}/.test(rest)) {
    const end = rest.search(/\r?\n\r?\n/);
    const head = end < 0 ? rest : rest.slice(0, end);
    const [status = '', ...lines] = head.split(/\r?\n/);
    statusLines.push(status.trim());
    for (const line of lines) {
      const colon = line.indexOf(':');
      if (colon > 0)
        headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
    }
    rest = end < 0 ? '' : rest.slice(end).replace(/^\r?\n\r?\n/, '');
    const code = Number(status.split(' ')[1]);
    if (code === 101 || code >= 200) break;
  }
  return { statusLines, headers, body: rest };
}

export interface ApiResponse<T> {
  status: number;
  headers: Headers;
  body: T;
}

/** A small JSON client over fetch, for setting up and checking what the clients under test did. */
export function apiClient(base: string) {
  const call = async <T = KubeObject>(
    method: string,
    path: string,
    body?: unknown,
    contentType = 'application/json',
  ): Promise<ApiResponse<T>> => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { 'Content-Type': contentType },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: (text ? JSON.parse(text) : {}) as T };
  };
  return {
    call,
    get: <T = KubeObject>(path: string) => call<T>('GET', path),
    post: <T = KubeObject>(path: string, body: unknown) => call<T>('POST', path, body),
    put: <T = KubeObject>(path: string, body: unknown) => call<T>('PUT', path, body),
    patch: <T = KubeObject>(path: string, body: unknown, type = 'application/merge-patch+json') =>
      call<T>('PATCH', path, body, type),
    delete: <T = KubeObject>(path: string) => call<T>('DELETE', path),
    /** Creates a namespace and returns its name. */
    async namespace(prefix = 'e2e'): Promise<string> {
      const name = uniqueName(prefix);
      const res = await call('POST', '/api/v1/namespaces', { metadata: { name } });
      if (res.status !== 201) throw new Error(`namespace ${name}: ${res.status}`);
      return name;
    },
  };
}

export type ApiClient = ReturnType<typeof apiClient>;

/**
 * One apiserver for the tests of a file, with a JSON client and a kubectl session against it:
 * started before the tests, disposed of after.
 */
export function e2eForFile(options: ApiServerOptions = {}) {
  let server: RunningApiServer | undefined;
  let api: ApiClient | undefined;
  let kubectl: KubectlSession | undefined;
  beforeAll(async () => {
    server = await startE2eServer(options);
    api = apiClient(server.url);
    kubectl = new KubectlSession(server.url);
  });
  afterAll(async () => {
    kubectl?.dispose();
    await server?.close();
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the server of the file starts in beforeAll');
    return value;
  };
  return {
    get server(): RunningApiServer {
      return started(server);
    },
    get api(): ApiClient {
      return started(api);
    },
    get kubectl(): KubectlSession {
      return started(kubectl);
    },
  };
}

/** The header and first row of kubectl's table output, cells split where kubectl pads. */
export function tableRow(stdout: string): { header: string[]; cells: string[] } {
  const [head = '', first = ''] = stdout.trimEnd().split('\n');
  const split = (line: string) => line.trim().split(/\s{2,}/);
  return { header: split(head), cells: split(first) };
}

export interface WebDeploymentOptions {
  replicas?: number;
  image?: string;
  labels?: Record<string, string>;
  /** More fields of the Deployment's spec, written after replicas. */
  spec?: Record<string, unknown>;
  /** More fields of its container, written after name and image. */
  container?: Record<string, unknown>;
}

/** The `web` Deployment the kubectl tests write: nginx pods labelled app=web. */
export function webDeployment(options: WebDeploymentOptions = {}): KubeObject {
  const app = { app: 'web' };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', ...(options.labels ? { labels: options.labels } : {}) },
    spec: {
      ...(options.replicas !== undefined ? { replicas: options.replicas } : {}),
      ...options.spec,
      selector: { matchLabels: app },
      template: {
        metadata: { labels: app },
        spec: {
          containers: [{ name: 'web', image: options.image ?? 'nginx', ...options.container }],
        },
      },
    },
  };
}

/** Objects as the multi-document YAML file `kubectl -f` reads. */
export function yamlManifest(...objects: object[]): string {
  return objects.map((o) => stringify(o)).join('---\n');
}
