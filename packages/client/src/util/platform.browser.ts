// The browser's stand-ins for util/platform.ts (package.json "browser" field).

/** The page's host: what names this instance of a controller (Event reportingInstance). */
export function hostname(): string {
  const page = (globalThis as { location?: { hostname?: string } }).location;
  return page?.hostname || 'browser';
}

/** util.format's substitutions (%s %d %i %f %j %o %O %%), the rest appended with spaces. */
export function format(fmt: string, ...args: unknown[]): string {
  let i = 0;
  const out = fmt.replace(/%[sdifjoO%]/g, (spec) => {
    if (spec === '%%') return '%';
    if (i >= args.length) return spec;
    const arg = args[i++];
    switch (spec) {
      case '%d':
      case '%f':
        return String(Number(arg));
      case '%i':
        return String(Number.parseInt(String(arg), 10));
      case '%j':
      case '%o':
      case '%O':
        return JSON.stringify(arg);
      default:
        return typeof arg === 'object' && arg !== null ? JSON.stringify(arg) : String(arg);
    }
  });
  const rest = args.slice(i).map((a) => (typeof a === 'string' ? a : JSON.stringify(a)));
  return [out, ...rest].join(' ');
}

export function readTextFile(path: string): Promise<string> {
  return Promise.reject(new Error(`cannot read ${path}: a browser has no files`));
}

/** A browser sends its own User-Agent: this one is never on the wire. */
export function defaultUserAgent(): string {
  return 'listwatch-client (browser)';
}
