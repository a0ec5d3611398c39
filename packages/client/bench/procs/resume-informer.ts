// Child process: our SharedIndexInformer of Pods, counting the LISTs it makes, so that a restart
// of the apiserver can be seen to be resumed by a WATCH from the last resourceVersion (no LIST).
import { findBuiltinResource, type KubeObject } from '@listwatch/api';
import { serveParent, wallMs } from '../../../../bench/proc.js';
import { RestClient, SharedIndexInformer, type ListerWatcher } from '../../src/index.js';

let informer: SharedIndexInformer | undefined;
let lists = 0;
const seen = new Map<string, number>();

serveParent({
  async start(args) {
    const { url } = args as { url: string };
    const client = new RestClient({ server: url });
    const inner = client.resource(findBuiltinResource('pods')!).namespace('').listerWatcher();
    const counting: ListerWatcher = {
      list: (params, signal) => {
        lists++;
        return inner.list(params, signal);
      },
      watch: (params, signal) => inner.watch(params, signal),
    };
    informer = new SharedIndexInformer({
      listerWatcher: counting,
      resource: { group: '', resource: 'pods' },
    });
    informer.addEventHandler({
      onAdd: (obj: KubeObject) => void seen.set(obj.metadata.name ?? '', wallMs()),
    });
    informer.start();
    await informer.waitForCacheSync();
    return { objects: informer.getIndexer().listKeys().length, lists };
  },
  /** When the Pod `name` was added to the cache (waits for it), and the LISTs made so far. */
  async added(args) {
    const { name, timeoutMs } = args as { name: string; timeoutMs: number };
    const deadline = performance.now() + timeoutMs;
    while (!seen.has(name)) {
      if (performance.now() > deadline) throw new Error(`${name} never reached the informer`);
      await new Promise((r) => setTimeout(r, 5));
    }
    return { at: seen.get(name), lists };
  },
  async stop() {
    await informer?.stop();
    return null;
  },
});
