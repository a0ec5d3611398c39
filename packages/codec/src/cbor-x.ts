// cbor-x as Node runs it: its decoder compiles readers with `new Function` for speed.
export { Decoder, Encoder, Tag } from 'cbor-x';
export type { Options } from 'cbor-x';
