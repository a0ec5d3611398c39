import { TestCa } from '@listwatch/testing';

export interface TestPki {
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

/**
 * A throwaway CA (the shared TestCa) with a server certificate for 127.0.0.1, localhost and
 * apiserver.test, and client certificates for test-user (in system:masters) and rotated-user.
 */
export function makeTestPki(): TestPki {
  const ca = new TestCa();
  const server = ca.server(['apiserver.test']);
  const client = ca.client('test-user', ['system:masters']);
  const rotated = ca.client('rotated-user');
  return {
    ca: ca.cert,
    serverCert: server.cert,
    serverKey: server.key,
    clientCert: client.cert,
    clientKey: client.key,
    rotatedClientCert: rotated.cert,
    rotatedClientKey: rotated.key,
    files: { ca: ca.certFile, clientCert: client.certFile, clientKey: client.keyFile },
    remove: () => ca.remove(),
  };
}
