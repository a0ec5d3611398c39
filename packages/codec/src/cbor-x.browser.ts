// cbor-x without `new Function` for the browser build (package.json "browser"): its default
// build probes `new Function('')` on import, which a page's Content-Security-Policy without
// 'unsafe-eval' reports as a violation.
export { Decoder, Encoder, Tag } from 'cbor-x/index-no-eval';
export type { Options } from 'cbor-x';
