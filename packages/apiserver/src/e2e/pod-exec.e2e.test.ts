import { PYTHON } from '@listwatch/testing';
import { execFile } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { e2eForFile } from './e2e.test-helper.js';

// The Python client's exec (python3-kubernetes' kubernetes.stream.stream over a WebSocket) ends
// promptly with the server's error, as against kube-apiserver for a pod no node runs: the
// WebSocket is answered with kube's 400 Status, never upgraded to a watch that streams pods and
// leaves the client waiting forever (issue 31).

const e2e = e2eForFile();

const EXEC = `
import sys
from kubernetes import client
from kubernetes.client.rest import ApiException
from kubernetes.stream import stream
c = client.Configuration(); c.host = sys.argv[1]
api = client.CoreV1Api(client.ApiClient(c))
for pod in sys.argv[2:]:
    try:
        out = stream(api.connect_get_namespaced_pod_exec, pod, 'default', command=['ls'],
                     stderr=True, stdin=False, stdout=True, tty=False)
        print('RETURNED ' + repr(out))
    except ApiException as e:
        print('RAISED ' + str(e.reason))
`;

/**
 * The script's output, a line per pod (one Python start for all: importing the client is most
 * of its time); the timeout is only a safety net for the hang this test rules out.
 */
function python(...args: string[]): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile(PYTHON, ['-c', EXEC, ...args], { timeout: 60_000 }, (err, stdout, stderr) =>
      err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout),
    ),
  );
}

describe("the Python client's exec against a pod no node runs", () => {
  it('raises with the 400 of a pod without a host, instead of hanging on a watch', async () => {
    const pod = {
      metadata: { name: 'x' },
      spec: { containers: [{ name: 'c', image: 'busybox' }] },
    };
    expect((await e2e.api.post('/api/v1/namespaces/default/pods', pod)).status).toBe(201);
    const [out, missing] = (await python(e2e.server.url, 'x', 'nope')).trim().split('\n');
    // websocket-client 1.2 (Debian's) reports the handshake's status line, not the Status body,
    // which websocket-upgrade.test.ts checks.
    expect(out).toBe('RAISED Handshake status 400 Bad Request');
    expect(missing).toBe('RAISED Handshake status 404 Not Found');
  });

  it('`kubectl exec`, `attach` and `port-forward` end with the same error, never a hang', async () => {
    // kubectl port-forward checks the pod is Running before it asks the server.
    const running = await e2e.api.patch('/api/v1/namespaces/default/pods/x/status', {
      status: { phase: 'Running' },
    });
    expect(running.status).toBe(200);
    for (const args of [
      ['exec', 'x', '--', 'ls'],
      ['attach', 'x'],
      ['port-forward', 'pod/x', '8080:80'],
    ]) {
      const res = await e2e.kubectl.run(args);
      expect(res.code, args.join(' ')).not.toBe(0);
      expect(res.stderr, args.join(' ')).toContain('pod x does not have a host assigned');
    }
  });
});
