// `@listwatch/client` as bundlers resolve it for a browser (the "browser" export condition):
// the same API as index.ts on fetch and the browser's WebSocket. package.json's "browser" field
// puts browser modules in the place of the Node-only ones (undici, transport, kubeconfig files,
// exec plugins); those throw, naming what to do instead.
import './util/browser-globals.js';

export * from './index.js';
