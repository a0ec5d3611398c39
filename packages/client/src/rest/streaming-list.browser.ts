import { isCodecError, JsonListDecoder } from '@listwatch/codec';
import { undecodable } from './errors.js';
import { ObjectSlimmer } from './object-slimmer.js';

/** streaming-list.ts over a fetch body (undici.browser.ts): an async iterable of chunks. */
export async function decodeStreamingList(
  body: AsyncIterable<Buffer>,
  onChunk: () => void,
  slim: boolean,
): Promise<unknown> {
  const slimmer = slim ? new ObjectSlimmer() : undefined;
  const decoder = new JsonListDecoder(slimmer ? { onItems: (items) => slimmer.slim(items) } : {});
  try {
    for await (const chunk of body) {
      onChunk();
      decoder.push(chunk);
    }
    return decoder.end();
  } catch (err) {
    if (isCodecError(err)) throw undecodable(err.message, err);
    throw err;
  }
}
