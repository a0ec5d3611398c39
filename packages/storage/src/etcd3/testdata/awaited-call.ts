// A process whose only work left is one lean Range call to `endpoint`, due in `ms`: it prints
// how the call ended (or nothing, if the process exits while the call is still awaited).
import { createRequire } from 'node:module';
import type * as Etcd3Module from 'etcd3';
import { Etcd3Unary } from '../etcd3-unary.js';
import { HostHealth } from '../host-health.js';

const [endpoint = '', ms = '300'] = process.argv.slice(2);
const etcd3 = createRequire(import.meta.url)('etcd3') as typeof Etcd3Module;
const unary = new Etcd3Unary([endpoint], new HostHealth([endpoint]), etcd3);
// The first call connects the session (and declines); the next goes on it.
for (;;) {
  const call = unary.range({ key: Buffer.from('/x') }, Date.now() + Number(ms));
  if (call) {
    call.then(
      () => console.log('answered'),
      (err: Error) => console.log(`failed: ${err.message}`),
    );
    break;
  }
  await new Promise((r) => setTimeout(r, 20));
}
