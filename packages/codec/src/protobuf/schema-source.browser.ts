import type { KindSchema, SchemaGvk, SourceType } from '@listwatch/api';

// The browser build has no schema source (it would add 673 KB to every page): no kind is
// served in protobuf, and reading a protobuf body names the way out.

/** No kind has a protobuf type here: objects are written as JSON. */
export function schemaFor(_gvk: SchemaGvk): KindSchema | undefined {
  return undefined;
}

export function schemaType(name: string): SourceType | undefined {
  throw new Error(
    `protobuf (${name}) is not in the browser build of @listwatch/codec: ask for JSON or CBOR`,
  );
}
