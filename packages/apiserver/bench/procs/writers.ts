// Child process: `writers` concurrent HTTP/1.1 clients creating then updating (PUT with the
// returned resourceVersion) ~1 KB ConfigMaps through the apiserver's REST API.
import { Agent, request } from 'node:http';
import { serveParent, timedLoops } from '../../../../bench/proc.js';

let seq = 0;

function send(
  agent: Agent,
  url: string,
  method: string,
  path: string,
  body: unknown,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const data = Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}${path}`,
      {
        method,
        agent,
        headers: { 'content-type': 'application/json', 'content-length': data.length },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>,
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}

const configMap = (name: string, generation: number, resourceVersion?: string) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: {
    name,
    namespace: 'bench',
    labels: { app: 'bench', tier: 'storage' },
    ...(resourceVersion ? { resourceVersion } : {}),
  },
  data: { generation: String(generation), payload: 'x'.repeat(900) },
});

serveParent({
  async run(args) {
    const { url, writers, ms } = args as { url: string; writers: number; ms: number };
    const agent = new Agent({ keepAlive: true, maxSockets: writers });
    const ns = await send(agent, url, 'POST', '/api/v1/namespaces', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'bench' },
    });
    if (ns.status !== 201 && ns.status !== 409) throw new Error(`namespace: ${ns.status}`);
    const base = '/api/v1/namespaces/bench/configmaps';
    const result = await timedLoops(writers, ms, async () => {
      const name = `w-${process.pid}-${seq++}`;
      const created = await send(agent, url, 'POST', base, configMap(name, 0));
      if (created.status !== 201) throw new Error(`create: ${created.status}`);
      const rv = (created.body['metadata'] as { resourceVersion: string }).resourceVersion;
      const updated = await send(agent, url, 'PUT', `${base}/${name}`, configMap(name, 1, rv));
      if (updated.status !== 200) throw new Error(`update: ${updated.status}`);
      return 2;
    });
    agent.destroy();
    return result;
  },
});
