import { ApiError, type GroupResource } from '@listwatch/api';

export type StorageErrorCode =
  | 'KeyNotFound'
  | 'KeyExists'
  | 'ResourceVersionConflicts'
  | 'InvalidObject'
  | 'InvalidKey'
  | 'TooLarge'
  | 'Expired'
  | 'ResourceVersionTooLarge'
  | 'Unreachable'
  | 'CorruptObject'
  | 'Internal';

const HTTP: Record<StorageErrorCode, [number, ApiError['reason']]> = {
  KeyNotFound: [404, 'NotFound'],
  KeyExists: [409, 'AlreadyExists'],
  ResourceVersionConflicts: [409, 'Conflict'],
  InvalidObject: [400, 'BadRequest'],
  InvalidKey: [400, 'BadRequest'],
  TooLarge: [413, 'RequestEntityTooLarge'],
  Expired: [410, 'Expired'],
  ResourceVersionTooLarge: [504, 'Timeout'],
  Unreachable: [503, 'ServiceUnavailable'],
  CorruptObject: [500, 'InternalError'],
  Internal: [500, 'InternalError'],
};

/**
 * A failure inside storage (k8s.io/apiserver/pkg/storage.StorageError). It is already an
 * ApiError with a sensible code; the apiserver rewrites the message with the resource's name
 * (`pods "x" not found`) through `interpret()`.
 */
export class StorageError extends ApiError {
  /** CorruptObject of a LIST: the keys that did not decode. */
  corruptKeys?: string[];
  constructor(
    readonly storageCode: StorageErrorCode,
    readonly key: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    const [code, reason] = HTTP[storageCode];
    super({ code, reason, message }, options);
    this.name = 'StorageError';
  }

  static keyNotFound(key: string): StorageError {
    return new StorageError('KeyNotFound', key, `key not found: ${key}`);
  }
  static keyExists(key: string): StorageError {
    return new StorageError('KeyExists', key, `key exists: ${key}`);
  }
  // Not `conflict`: the static side of ApiError already has one with another signature.
  static revisionConflict(key: string, expected: number, actual: number): StorageError {
    return new StorageError(
      'ResourceVersionConflicts',
      key,
      `resource version conflict on ${key}: expected ${expected}, current ${actual}`,
    );
  }
  static invalidKey(key: string, why: string): StorageError {
    return new StorageError('InvalidKey', key, `invalid key ${JSON.stringify(key)}: ${why}`);
  }
  static invalidObject(key: string, why: string): StorageError {
    return new StorageError('InvalidObject', key, `invalid object at ${key}: ${why}`);
  }
  static tooLarge(key: string, bytes: number, limit: number): StorageError {
    return new StorageError(
      'TooLarge',
      key,
      `object at ${key} is ${bytes} bytes, over the ${limit} byte limit`,
    );
  }
  /** The revision asked for has been compacted (`compacted` is the compaction revision if known). */
  static override expired(key: string, requested?: number, compacted?: number): StorageError {
    const message =
      requested === undefined
        ? 'too old resource version'
        : compacted === undefined
          ? `too old resource version: ${requested}`
          : `too old resource version: ${requested} (${compacted})`;
    return new StorageError('Expired', key, message);
  }
  /**
   * A read at a revision the store has not reached (etcd: "required revision is a future
   * revision"). Worded and shaped as kube-apiserver's NewTooLargeResourceVersionError: 504 with
   * a ResourceVersionTooLarge cause, so clients retry.
   */
  static resourceVersionTooLarge(key: string, requested: number, current: number): StorageError {
    const err = new StorageError(
      'ResourceVersionTooLarge',
      key,
      `Timeout: Too large resource version: ${requested}, current: ${current}`,
    );
    err.status.details = {
      causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
      retryAfterSeconds: 1,
    };
    return err;
  }
  static unreachable(key: string, cause: unknown): StorageError {
    const text = cause instanceof Error ? cause.message : String(cause);
    return new StorageError('Unreachable', key, `storage unreachable: ${text}`, { cause });
  }
  /**
   * A stored value that does not decode: no configured key decrypts it, or it is not an object
   * (storage/errors.go ErrCodeCorruptObj, which kube-apiserver answers as a 500 InternalError).
   * An error of that object alone: reads of everything else go on.
   */
  static corruptObject(key: string, why: string): StorageError {
    return new StorageError(
      'CorruptObject',
      key,
      `Internal error occurred: corrupt object at ${key}: data from the storage is not transformable or decodable: ${why}`,
    );
  }
  /**
   * A LIST that met corrupt objects (kube 1.32 etcd3/store.go GetList: the list fails naming
   * every corrupt key; kube's remedy is deleting them, here with etcdctl or sqlite).
   */
  static corruptList(prefix: string, corrupt: readonly StorageError[]): StorageError {
    const err = new StorageError(
      'CorruptObject',
      prefix,
      `Internal error occurred: failed to list ${prefix}: data from the storage is not transformable or decodable at: ${corrupt.map((c) => c.key).join(', ')}`,
    );
    err.corruptKeys = corrupt.map((c) => c.key);
    return err;
  }
  static internal(key: string, cause: unknown): StorageError {
    const text = cause instanceof Error ? cause.message : String(cause);
    return new StorageError('Internal', key, text, { cause });
  }

  /**
   * The error as the API reports it for one resource and object name
   * (k8s.io/apiserver/pkg/storage/errors: InterpretGetError & co).
   */
  interpret(gr: GroupResource, name: string): ApiError {
    switch (this.storageCode) {
      case 'KeyNotFound':
        return ApiError.notFound(gr, name);
      case 'KeyExists':
        return ApiError.alreadyExists(gr, name);
      case 'ResourceVersionConflicts':
        return ApiError.conflict(gr, name);
      case 'TooLarge':
        // etcd's words, which clients look for (kubernetes#74600); a 413, not kube's 500
        // (kubernetes#112152): the client sent too much.
        return new ApiError(
          {
            code: 413,
            reason: 'RequestEntityTooLarge',
            message: 'etcdserver: request is too large',
          },
          { cause: this },
        );
      default:
        return this;
    }
  }
}

export function isStorageError(value: unknown, code?: StorageErrorCode): value is StorageError {
  return value instanceof StorageError && (code === undefined || value.storageCode === code);
}
