// What this page takes from @listwatch/client. The dashboard server bundles this file for the
// browser with esbuild (the package's "browser" export: fetch and the browser's WebSocket, no
// Node built-ins) and serves it as /client.js.
export {
  bearerToken,
  isDeletedFinalStateUnknown,
  jsonLineLogger,
  RestClient,
  SharedIndexInformer,
} from '@listwatch/client';
