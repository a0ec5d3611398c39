// What the client asks of its platform, in one place: Node here, the browser in
// platform.browser.ts (package.json's "browser" field substitutes it when bundling for one).
export { hostname } from 'node:os';
export { format } from 'node:util';

/** A text file's contents (a token file's). */
export async function readTextFile(path: string): Promise<string> {
  const { readFile } = await import('node:fs/promises');
  return readFile(path, 'utf8');
}

/** client-go's default User-Agent names the program and platform. */
export function defaultUserAgent(): string {
  return `listwatch-client (node ${process.version})`;
}
