// exec-credential.ts in a browser (package.json "browser" field): a page runs no programs.
import { ApiError } from '@listwatch/api';

export const EXEC_API_VERSIONS = [
  'client.authentication.k8s.io/v1',
  'client.authentication.k8s.io/v1beta1',
] as const;

export class ExecCredentialProvider {
  constructor() {
    throw ApiError.badRequest('exec credential plugins are programs, which a browser cannot run');
  }
}
