import { ApiError } from '@listwatch/api';

// Shared by kubeconfig.ts and its browser stand-in, so both throw the one class.

/** A kubeconfig that cannot be used: missing, malformed, or pointing nowhere. */
export class KubeConfigError extends ApiError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(
      { code: 400, reason: 'BadRequest', message: `invalid configuration: ${message}` },
      options,
    );
    this.name = 'KubeConfigError';
  }
}
