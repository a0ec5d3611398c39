import type { RunningApiServer } from '@listwatch/apiserver';
import { makeTestPki, type TestPki } from './tls.js';
import { startTestApiServer } from './apiserver.js';

/** Our apiserver on memory storage over TLS, with the throwaway PKI that signed it. */
export async function startTlsApiServer(): Promise<{
  apiserver: RunningApiServer;
  pki: TestPki;
  close(): Promise<void>;
}> {
  const pki = makeTestPki();
  let apiserver: RunningApiServer;
  try {
    apiserver = await startTestApiServer({
      tlsCert: pki.serverCert,
      tlsKey: pki.serverKey,
    });
  } catch (err) {
    pki.remove();
    throw err;
  }
  return {
    apiserver,
    pki,
    close: async () => {
      try {
        await apiserver.close();
      } finally {
        pki.remove();
      }
    },
  };
}
