// Child process: `concurrency` slow readers of one LIST each. Every reader takes a chunk, then
// pauses `pauseMs` before the next, so the server holds each response for seconds, as it would
// for clients on slow links.
import { request } from 'node:http';
import { serveParent } from '../../../../bench/proc.js';

function slowRead(url: string, pauseMs: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { accept: 'application/json' } }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`LIST answered ${res.statusCode}`));
      let bytes = 0;
      res.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        res.pause();
        setTimeout(() => res.resume(), pauseMs);
      });
      res.on('end', () => resolve(bytes));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

serveParent({
  async read(args) {
    const { url, concurrency, pauseMs } = args as {
      url: string;
      concurrency: number;
      pauseMs: number;
    };
    const start = performance.now();
    const sizes = await Promise.all(
      Array.from({ length: concurrency }, () => slowRead(url, pauseMs)),
    );
    return { bytes: sizes[0], seconds: (performance.now() - start) / 1000 };
  },
});
