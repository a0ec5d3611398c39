import type { ApiServerOptions } from '@listwatch/apiserver';
import { clientCertificate, RestClient, type Logger } from '@listwatch/client';
import { join } from 'node:path';
import { DemoPki, SERVING, writeKubeconfig, type KeyPair } from './pki.js';
import {
  ADMIN,
  CONTROLLER_MANAGER,
  controllerIdentity,
  DASHBOARD,
  demoPolicy,
  ensurePolicy,
  nodeIdentity,
  SCHEDULER,
  type Identity,
} from './policy.js';

// `pnpm demo --secure`: the apiserver serves TLS only, authenticates client certificates signed
// by the demo's CA and authorizes with RBAC; every component connects as itself.

/** The identity a DemoCluster component name stands for. */
export function identityOf(component: string): Identity {
  if (component === 'admin') return ADMIN;
  if (component === 'dashboard') return DASHBOARD;
  if (component === 'kube-controller-manager') return CONTROLLER_MANAGER;
  if (component === 'kube-scheduler') return SCHEDULER;
  if (component.startsWith('node:')) return nodeIdentity(component.slice('node:'.length));
  return controllerIdentity(component);
}

/** The components of a demo cluster with these nodes (DemoCluster's clientFor names). */
export function demoComponents(nodes: readonly string[]): string[] {
  return [
    'admin',
    'dashboard',
    'kube-controller-manager',
    'kube-scheduler',
    'deployment-controller',
    'replicaset-controller',
    'generic-garbage-collector',
    'namespace-controller',
    'sample-controller',
    'job-controller',
    'cronjob-controller',
    'endpointslice-controller',
    ...nodes.map((n) => `node:${n}`),
  ];
}

/** What the apiserver is started with: the serving certificate, the client CA and RBAC. */
export interface SecurePki {
  dir: string;
  serverOptions: Pick<ApiServerOptions, 'tlsCert' | 'tlsKey' | 'clientCA' | 'authorizationMode'>;
  /**
   * The same as `pnpm apiserver` flags naming the files in `dir`, for apiserver processes
   * (`--apiservers N`): every replica serves the one serving certificate and trusts the one CA,
   * so a client verifies and is verified alike whichever replica the balancer picks. The
   * service-account token keys default to the serving key, so they are shared too.
   */
  serverFlags: string[];
  ca: string;
  certificates: ReadonlyMap<string, KeyPair>;
}

/** A fresh CA in `dir`, the serving certificate and one client certificate per component. */
export async function createSecurePki(
  dir: string,
  components: readonly string[],
): Promise<SecurePki> {
  const pki = await DemoPki.create(dir);
  const serving = await pki.serving();
  const issued = await Promise.all(
    components.map(async (c) => {
      const { user, groups } = identityOf(c);
      return [c, await pki.client(c.replace(/[^a-z0-9-]/gi, '-'), user, groups)] as const;
    }),
  );
  return {
    dir,
    ca: pki.ca.cert,
    certificates: new Map(issued),
    serverOptions: {
      tlsCert: serving.cert,
      tlsKey: serving.key,
      clientCA: pki.ca.cert,
      authorizationMode: ['RBAC'],
    },
    serverFlags: [
      '--tls-cert-file',
      join(dir, `${SERVING}.crt`),
      '--tls-private-key-file',
      join(dir, `${SERVING}.key`),
      '--client-ca-file',
      join(dir, 'ca.crt'),
      '--authorization-mode',
      'RBAC',
    ],
  };
}

/** A client per component, each with its own certificate; the admin kubeconfig on disk. */
export class SecureClients {
  readonly admin: RestClient;
  /** `<dir>/admin.kubeconfig`: `kubectl --kubeconfig <path>` as kubernetes-admin. */
  readonly adminKubeconfig: string;
  private readonly clients = new Map<string, RestClient>();

  constructor(
    private readonly pki: SecurePki,
    private readonly server: string,
    private readonly logger?: Logger,
  ) {
    this.admin = this.clientFor('admin');
    this.adminKubeconfig = join(pki.dir, 'admin.kubeconfig');
    writeKubeconfig(this.adminKubeconfig, server, pki.ca, {
      name: ADMIN.user,
      ...this.certificate('admin'),
    });
  }

  /** TLS settings of a component: the demo CA and its client certificate. */
  tls(component: string): { ca: string; cert: string; key: string } {
    return { ca: this.pki.ca, ...this.certificate(component) };
  }

  /** The component's client (one per component, made on first use). */
  clientFor = (component: string): RestClient => {
    let client = this.clients.get(component);
    if (!client) {
      client = new RestClient({
        server: this.server,
        tls: { ca: this.pki.ca },
        credentials: clientCertificate(
          this.certificate(component).cert,
          this.certificate(component).key,
        ),
        userAgent: `listwatch-demo/${component}`,
        ...(this.logger ? { logger: this.logger } : {}),
      });
      this.clients.set(component, client);
    }
    return client;
  };

  /** Creates the components' roles and bindings as the admin. */
  ensurePolicy(): Promise<void> {
    return ensurePolicy(this.admin, demoPolicy());
  }

  async close(): Promise<void> {
    await Promise.all([...this.clients.values()].map((c) => c.close()));
  }

  private certificate(component: string): KeyPair {
    const pair = this.pki.certificates.get(component);
    if (!pair) throw new Error(`no certificate was issued for ${component}`);
    return pair;
  }
}
