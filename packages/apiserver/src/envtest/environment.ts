import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { silentLogger, type Logger } from '@listwatch/api';
import { parseAllDocuments } from 'yaml';
import { startApiServer, type ApiServerOptions, type RunningApiServer } from '../server.js';

/**
 * controller-runtime's envtest.Environment without its binaries: the apiserver of this package
 * runs in-process on memory storage instead of spawning etcd and kube-apiserver.
 */
export interface TestEnvironmentOptions {
  /**
   * Folders or files of CustomResourceDefinition manifests (YAML, multi-document, or JSON), as
   * envtest's CRDDirectoryPaths: every `*.yaml`, `*.yml` and `*.json` directly in a folder;
   * documents of other kinds are ignored, as envtest's readCRDs does. A `file:` URL is a path
   * (`new URL('crd', import.meta.url)`: beside the test file).
   */
  crdDirectoryPaths?: readonly (string | URL)[] | undefined;
  /** CRDs given as objects (envtest's CRDInstallOptions.CRDs), installed with the folders'. */
  crds?: readonly object[] | undefined;
  /** A path in crdDirectoryPaths that does not exist fails start (default true, unlike envtest). */
  errorIfCrdPathMissing?: boolean | undefined;
  /** How long to wait for the CRDs to be established and served (default 10 s, as envtest's MaxTime). */
  crdWaitTimeoutMs?: number | undefined;
  /** The server's logger (default silent: a test run prints nothing of it). */
  logger?: Logger | undefined;
  /** More options for the server (storage stays memory unless these name another). */
  apiServer?: ApiServerOptions | undefined;
}

/** What a client needs to reach the environment: a `RestConfig` of `@listwatch/client`. */
export interface TestEnvironmentConfig {
  server: string;
}

/** A running environment; `stop()` it after the tests (afterAll). */
export interface TestEnvironment {
  /** `http://127.0.0.1:<port>`: anonymous requests are cluster-admin (loopback only). */
  readonly url: string;
  /** `new RestClient(env.config)` from `@listwatch/client`. */
  readonly config: TestEnvironmentConfig;
  /** The names of the CRDs installed, established and served. */
  readonly crdNames: readonly string[];
  /** The running server (storage, context), for what the rest does not cover. */
  readonly server: RunningApiServer;
  /** A new namespace named `<prefix><random>` (prefix `test-`): one per test keeps tests apart. */
  createNamespace(prefix?: string): Promise<string>;
  /** A kubeconfig (YAML) naming the server, for kubectl or other clients. */
  kubeconfig(): string;
  /** Stops the server: watches end, connections close, memory storage is dropped. */
  stop(): Promise<void>;
}

/**
 * Starts an apiserver in-process (memory storage, a free loopback port, silent), installs the
 * CRDs and resolves once they are established and their resources are served.
 */
export async function startTestEnvironment(
  options: TestEnvironmentOptions = {},
): Promise<TestEnvironment> {
  const crds = [
    ...readCrds(options.crdDirectoryPaths ?? [], options.errorIfCrdPathMissing ?? true),
    ...(options.crds ?? []),
  ];
  const server = await startApiServer({
    port: 0,
    bindAddress: '127.0.0.1',
    storageBackend: 'memory',
    logger: options.logger ?? silentLogger,
    ...options.apiServer,
  });
  try {
    const crdNames = await installCrds(server.url, crds, options.crdWaitTimeoutMs ?? 10_000);
    return environment(server, crdNames);
  } catch (err) {
    await server.close();
    throw err;
  }
}

function environment(server: RunningApiServer, crdNames: readonly string[]): TestEnvironment {
  const url = server.url;
  return {
    url,
    config: { server: url },
    crdNames,
    server,
    async createNamespace(prefix = 'test-') {
      const created = (await send(url, 'POST', '/api/v1/namespaces', {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { generateName: prefix },
      })) as { metadata: { name: string } };
      return created.metadata.name;
    },
    kubeconfig() {
      return [
        'apiVersion: v1',
        'kind: Config',
        'current-context: envtest',
        `clusters: [{name: envtest, cluster: {server: '${url}'}}]`,
        'users: [{name: envtest, user: {}}]',
        'contexts: [{name: envtest, context: {cluster: envtest, user: envtest}}]',
        '',
      ].join('\n');
    },
    stop: () => server.close(),
  };
}

const MANIFEST_EXTENSIONS = new Set(['.yaml', '.yml', '.json']);

/** The CRDs of the manifests under `paths` (controller-runtime envtest/crd.go readCRDs). */
export function readCrds(paths: readonly (string | URL)[], errorIfMissing = true): object[] {
  const crds: object[] = [];
  for (const given of paths) {
    const path = typeof given === 'string' ? given : fileURLToPath(given);
    if (!existsSync(path)) {
      if (errorIfMissing) throw new Error(`envtest: CRD path ${path} does not exist`);
      continue;
    }
    const files = statSync(path).isDirectory()
      ? readdirSync(path)
          .filter((f) => MANIFEST_EXTENSIONS.has(extname(f)))
          .sort()
          .map((f) => join(path, f))
      : [path];
    for (const file of files) {
      // JSON is YAML: one parser for both.
      for (const doc of parseAllDocuments(readFileSync(file, 'utf8'))) {
        if (doc.errors.length > 0)
          throw new Error(`envtest: ${file}: ${doc.errors.map((e) => e.message).join('; ')}`);
        const object: unknown = doc.toJS();
        if (isCrd(object)) crds.push(object);
      }
    }
  }
  return crds;
}

function isCrd(object: unknown): object is object {
  if (typeof object !== 'object' || object === null) return false;
  const { apiVersion, kind } = object as { apiVersion?: unknown; kind?: unknown };
  return kind === 'CustomResourceDefinition' && apiVersion === 'apiextensions.k8s.io/v1';
}

interface InstalledCrd {
  metadata: { name: string };
  spec: { group: string; names: { plural: string }; versions: { name: string; served: boolean }[] };
}

/** Creates the CRDs through the API (validated, defaulted), then waits as envtest's WaitForCRDs. */
async function installCrds(
  url: string,
  crds: readonly object[],
  timeoutMs: number,
): Promise<string[]> {
  const installed: InstalledCrd[] = [];
  for (const crd of crds) installed.push((await send(url, 'POST', CRD_PATH, crd)) as InstalledCrd);
  const deadline = Date.now() + timeoutMs;
  for (const crd of installed) await waitForCrd(url, crd, deadline);
  return installed.map((c) => c.metadata.name);
}

const CRD_PATH = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';

/** How often discovery is asked again (envtest polls every 100 ms; the server needs a few ms). */
const POLL_INTERVAL_MS = 5;

/**
 * Established, and every served version's resource in discovery: what envtest's WaitForCRDs
 * polls (Established alone races the handler that starts serving the resource).
 */
async function waitForCrd(url: string, crd: InstalledCrd, deadline: number): Promise<void> {
  const name = crd.metadata.name;
  for (;;) {
    if (await crdReady(url, crd)) return;
    if (Date.now() > deadline)
      throw new Error(`envtest: CRD ${name} not established and served in time`);
    await new Promise((resolve) => setTimeout(resolve, POLL_INTERVAL_MS));
  }
}

async function crdReady(url: string, crd: InstalledCrd): Promise<boolean> {
  const current = (await send(url, 'GET', `${CRD_PATH}/${crd.metadata.name}`)) as {
    status?: { conditions?: { type: string; status: string }[] };
  };
  const established = current.status?.conditions?.some(
    (c) => c.type === 'Established' && c.status === 'True',
  );
  if (!established) return false;
  for (const version of crd.spec.versions) {
    if (!version.served) continue;
    const res = await fetch(`${url}/apis/${crd.spec.group}/${version.name}`);
    if (!res.ok) return false;
    const list = (await res.json()) as { resources?: { name: string }[] };
    if (!list.resources?.some((r) => r.name === crd.spec.names.plural)) return false;
  }
  return true;
}

/** One JSON request; a failure is the server's Status message. */
async function send(url: string, method: string, path: string, body?: object): Promise<unknown> {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: { accept: 'application/json', 'content-type': 'application/json' },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const json = (await res.json()) as { message?: string };
  if (!res.ok) throw new Error(`envtest: ${method} ${path}: ${res.status} ${json.message ?? ''}`);
  return json;
}
