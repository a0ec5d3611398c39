import { createRequire } from 'node:module';

/** Node's `require` from some place: where an optional peer is looked up. */
export type RequireFrom = (id: string) => unknown;

const fromHere: RequireFrom = createRequire(import.meta.url);

/**
 * Loads an optional peer dependency (better-sqlite3, etcd3: a native build and a gRPC stack a
 * memory-only install does without) the first time its backend is opened. Both are CommonJS, so
 * `require` loads them synchronously and the backends' constructors stay synchronous. When the
 * package is missing, the error names what to install.
 */
export function loadOptionalPeer<T>(
  name: string,
  backend: string,
  from: RequireFrom = fromHere,
): T {
  try {
    return from(name) as T;
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    if (e.code === 'MODULE_NOT_FOUND' && e.message.includes(`'${name}'`)) {
      throw new Error(
        `the ${backend} storage backend needs the package ${name}, an optional peer dependency of @listwatch/storage that is not installed: npm i ${name}`,
        { cause: err },
      );
    }
    throw err;
  }
}
