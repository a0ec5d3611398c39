import { CodecError } from '../codec-error.js';
import { encodeError, utf8, writeMessage } from './kube-protobuf-encode.js';
import {
  lookup,
  numberOf,
  planOf,
  protobufTypeOf,
  PROTOBUF_MAGIC,
  RUNTIME_TYPE_META,
  UNKNOWN,
} from './kube-protobuf-plan.js';
import { WireWriter } from './wire.js';

// Lists in protobuf item by item, so a LIST can write each item's encoding as it is produced.

function listPlan(apiVersion: unknown, kind: unknown) {
  const type = protobufTypeOf(apiVersion, kind);
  if (!type) {
    throw new CodecError(`no protobuf encoding for ${String(kind)} of ${String(apiVersion)}`, 0);
  }
  const plan = planOf(type);
  const items = plan.declared.find((f) => f.field.name === 'items');
  const metadata = plan.declared.find((f) => f.field.name === 'metadata');
  if (
    !items ||
    !metadata ||
    items.element.kind !== 'message' ||
    metadata.element.kind !== 'message'
  ) {
    throw new CodecError(`${String(kind)} is not a list kind`, 0);
  }
  return {
    items: items.field.number,
    itemType: items.element.name,
    metadata: metadata.field.number,
    metadataType: metadata.element.name,
  };
}

/**
 * One item of a list in protobuf: its `items` field (tag, length and message), which a LIST
 * writes as is; remembered per item like the JSON and CBOR item encodings.
 */
export function encodeProtobufListItem(
  list: { apiVersion?: unknown; kind?: unknown },
  item: unknown,
): Uint8Array {
  const plan = listPlan(list.apiVersion, list.kind);
  const w = new WireWriter();
  try {
    writeMessage(
      w,
      plan.items,
      { kind: 'message', name: plan.itemType, type: lookup(plan.itemType) },
      item,
      'items',
    );
  } catch (err) {
    encodeError(err);
  }
  return w.finish();
}

/**
 * What surrounds a list's items in protobuf, once their encodings' total size is known: the
 * magic, the envelope up to `raw` and the list's metadata; then the contentEncoding and
 * contentType the envelope ends with. head + items + tail = encodeProtobuf(list).
 */
export function protobufListFrame(
  list: { apiVersion?: unknown; kind?: unknown; metadata?: unknown },
  itemsSize: number,
): { head: Uint8Array; tail: Uint8Array } {
  const plan = listPlan(list.apiVersion, list.kind);
  const metadata = new WireWriter(64);
  try {
    writeMessage(
      metadata,
      plan.metadata,
      { kind: 'message', name: plan.metadataType, type: lookup(plan.metadataType) },
      list.metadata ?? undefined,
      'metadata',
    );
  } catch (err) {
    encodeError(err);
  }
  const meta = metadata.finish();
  const w = new WireWriter(meta.length + 64);
  w.raw(PROTOBUF_MAGIC);
  const typeMeta = new WireWriter(64);
  typeMeta.bytes(numberOf(RUNTIME_TYPE_META, 'apiVersion'), utf8.encode(list.apiVersion as string));
  typeMeta.bytes(numberOf(RUNTIME_TYPE_META, 'kind'), utf8.encode(list.kind as string));
  w.bytes(numberOf(UNKNOWN, 'typeMeta'), typeMeta.finish());
  w.tag(numberOf(UNKNOWN, 'raw'), 2);
  w.uint32(meta.length + itemsSize);
  w.raw(meta);
  const tail = new WireWriter(8);
  tail.bytes(numberOf(UNKNOWN, 'contentEncoding'), new Uint8Array());
  tail.bytes(numberOf(UNKNOWN, 'contentType'), new Uint8Array());
  return { head: w.finish().slice(), tail: tail.finish() };
}
