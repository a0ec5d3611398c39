import type { KubeObject } from '@listwatch/api';
import { MemoryStorage } from '@listwatch/storage';
import { KUBECTL, silentLogger, TestCa, tempDir } from '@listwatch/testing';
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import { startApiServer, type ApiServerOptions, type RunningApiServer } from '../server.js';

// An apiserver with --authorization-mode RBAC over TLS (kubectl sends no token over plain HTTP),
// static tokens for a few users, and kubectl and HTTPS clients acting as them.

export const RBAC = 'rbac.authorization.k8s.io';

/** token-file lines: `admin` is system:masters, the others hold only what tests bind them. */
const USERS = {
  admin: 'admin-token,admin,1,"system:masters"',
  alice: 'alice-token,alice,2',
  bob: 'bob-token,bob,3,"devs"',
} as const;
export type TestUser = keyof typeof USERS;

export interface Reply {
  status: number;
  headers: IncomingMessage['headers'];
  body: KubeObject & { message?: string; reason?: string };
}

export interface RbacCluster {
  server: RunningApiServer;
  ca: TestCa;
  dir: string;
  /** An HTTPS request as `who` (or anonymous) with a JSON body; the raw response. */
  send(
    who: TestUser | undefined,
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<IncomingMessage>;
  /** The same, read whole and parsed. */
  as(who: TestUser | undefined, method: string, path: string, body?: unknown): Promise<Reply>;
  kubectl(
    who: TestUser,
    ...args: string[]
  ): Promise<{ code: number; stdout: string; stderr: string }>;
  /** The bearer token of a user, for tests that look for it where it must not be. */
  token(who: TestUser): string;
  close(): Promise<void>;
}

/**
 * `ca` signs the serving certificate (and, with `clientCA: ca.cert` in the options, the client
 * certificates the server accepts); it is removed when the cluster closes.
 */
export async function startRbacCluster(
  options: ApiServerOptions = {},
  ca = new TestCa(),
): Promise<RbacCluster> {
  const dir = tempDir('listwatch-rbac-');
  const tokens = join(dir.path, 'tokens.csv');
  writeFileSync(tokens, `${Object.values(USERS).join('\n')}\n`);
  const serving = ca.server();
  const server = await startApiServer({
    storage: new MemoryStorage({ compactionInterval: 0 }),
    port: 0,
    logger: silentLogger,
    tokenAuthFile: tokens,
    authorizationMode: ['RBAC'],
    tlsCert: serving.cert,
    tlsKey: serving.key,
    ...options,
  });
  const token = (who: TestUser) => USERS[who].split(',')[0]!;

  const send: RbacCluster['send'] = (who, method, path, body, headers = {}) =>
    new Promise((resolve, reject) => {
      const req = httpsRequest(`${server.url}${path}`, {
        method,
        ca: ca.cert,
        headers: {
          'content-type': 'application/json',
          ...(who ? { authorization: `Bearer ${token(who)}` } : {}),
          ...headers,
        },
      });
      req.on('response', resolve).on('error', reject);
      req.end(body !== undefined ? JSON.stringify(body) : undefined);
    });

  const as: RbacCluster['as'] = async (who, method, path, body) => {
    const res = await send(who, method, path, body);
    let text = '';
    for await (const chunk of res as AsyncIterable<Buffer>) text += chunk.toString();
    return {
      status: res.statusCode ?? 0,
      headers: res.headers,
      body: (text ? JSON.parse(text) : {}) as Reply['body'],
    };
  };

  const kubectl: RbacCluster['kubectl'] = (who, ...args) => {
    const config = join(dir.path, `kubeconfig-${who}`);
    writeFileSync(
      config,
      [
        'apiVersion: v1',
        'kind: Config',
        `clusters: [{name: c, cluster: {server: "${server.url}", certificate-authority: "${ca.certFile}"}}]`,
        `users: [{name: u, user: {token: ${token(who)}}}]`,
        'contexts: [{name: c, context: {cluster: c, user: u}}]',
        'current-context: c',
        '',
      ].join('\n'),
    );
    return new Promise((resolve) =>
      execFile(
        KUBECTL,
        args,
        { env: { PATH: process.env['PATH'] ?? '', HOME: dir.path, KUBECONFIG: config } },
        (err, stdout, stderr) => resolve({ code: err ? 1 : 0, stdout, stderr }),
      ),
    );
  };

  return {
    server,
    ca,
    dir: dir.path,
    send,
    as,
    kubectl,
    token,
    close: async () => {
      await server.close();
      dir.remove();
      ca.remove();
    },
  };
}

/** A Role (or ClusterRole without a namespace) with these rules. */
export function role(
  name: string,
  namespace: string | undefined,
  rules: Record<string, unknown>[],
): KubeObject {
  return {
    apiVersion: `${RBAC}/v1`,
    kind: namespace ? 'Role' : 'ClusterRole',
    metadata: { name, ...(namespace ? { namespace } : {}) },
    rules,
  };
}

/** A RoleBinding (or ClusterRoleBinding without a namespace) of a role to users. */
export function binding(
  name: string,
  namespace: string | undefined,
  roleRef: { kind: 'Role' | 'ClusterRole'; name: string },
  users: string[],
): KubeObject {
  return {
    apiVersion: `${RBAC}/v1`,
    kind: namespace ? 'RoleBinding' : 'ClusterRoleBinding',
    metadata: { name, ...(namespace ? { namespace } : {}) },
    roleRef: { apiGroup: RBAC, ...roleRef },
    subjects: users.map((user) => ({ apiGroup: RBAC, kind: 'User', name: user })),
  };
}

/** The REST path of a collection of an RBAC resource. */
export function rbacPath(resource: string, namespace?: string): string {
  return `/apis/${RBAC}/v1${namespace ? `/namespaces/${namespace}` : ''}/${resource}`;
}
