import type * as Etcd3Module from 'etcd3';
import { loadOptionalPeer } from '../optional-peer.js';
import { StorageError, isStorageError } from '../storage-error.js';

/** etcd3's own test for errors worth retrying on another member; etcd3 is loaded by now. */
const isRecoverableError: typeof Etcd3Module.isRecoverableError = (err) =>
  loadOptionalPeer<typeof Etcd3Module>('etcd3', 'etcd3').isRecoverableError(err);

/** What etcd says when a revision has been compacted away. */
export function isCompactedError(err: unknown): boolean {
  return err instanceof Error && err.message.includes('required revision has been compacted');
}

/** What etcd says when a revision is ahead of the store. */
export function isFutureRevisionError(err: unknown): boolean {
  return err instanceof Error && err.message.includes('required revision is a future revision');
}

/**
 * Whether the request certainly never reached etcd, so even a write may be retried elsewhere
 * without risking a double apply (the connection was refused or never established).
 */
export function neverSent(err: unknown): boolean {
  return (
    err instanceof Error &&
    (err.message.includes('No connection established') ||
      err.message.includes('ECONNREFUSED') ||
      err.constructor.name === 'HostDownError')
  );
}

/** Network-level trouble: the member may be down; another may answer. */
export function isTransient(err: unknown): boolean {
  return (
    typeof err === 'object' && err !== null && (isRecoverableError(err as Error) || neverSent(err))
  );
}

/** An etcd or transport failure as the StorageError the contract promises. */
export function toStorageError(key: string, err: unknown): StorageError {
  if (isStorageError(err)) return err;
  if (isCompactedError(err)) return StorageError.expired(key);
  if (err instanceof Error && err.message.includes('request is too large')) {
    return new StorageError(
      'TooLarge',
      key,
      `object at ${key} is too large for etcd: ${err.message}`,
      { cause: err },
    );
  }
  if (
    isTransient(err) ||
    (err instanceof Error && err.message.includes('client was already closed'))
  ) {
    return StorageError.unreachable(key, err);
  }
  return StorageError.internal(key, err);
}
