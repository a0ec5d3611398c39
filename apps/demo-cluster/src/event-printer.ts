import type { WatchEvent } from '@listwatch/api';
import { decodeWatchStream } from '@listwatch/codec';

/**
 * A client of the watch API: LIST-free `?watch=true` from resourceVersion 0 over one chunked
 * HTTP/1.1 response, decoded incrementally by the codec, one line printed per event.
 */
export async function printEvents(
  url: string,
  path: string,
  signal: AbortSignal,
  print: (line: string) => void,
): Promise<void> {
  const res = await fetch(`${url}${path}?watch=true&resourceVersion=0&allowWatchBookmarks=true`, {
    signal,
  });
  if (!res.ok || !res.body) throw new Error(`watch failed: HTTP ${res.status}`);
  try {
    for await (const event of decodeWatchStream(res.body as AsyncIterable<Uint8Array>, 'json'))
      print(describe(event));
  } catch (err) {
    if (!signal.aborted) throw err;
  }
}

function describe(event: WatchEvent): string {
  if (event.type === 'ERROR') return `ERROR    ${event.object.message ?? ''}`;
  const object = event.object;
  const { name = '', resourceVersion = '' } = object.metadata;
  const data = JSON.stringify((object as { data?: unknown }).data ?? {});
  return `${event.type.padEnd(8)} configmap/${name.padEnd(10)} rv=${resourceVersion.padEnd(6)} ${event.type === 'BOOKMARK' ? '' : data}`;
}
