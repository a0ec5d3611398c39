// kubeconfig.ts in a browser (package.json "browser" field): kubeconfigs are files and exec
// plugins programs, neither of which a page has. Give RestClient a RestConfig instead.
import { KubeConfigError } from './kubeconfig-error.js';

export { KubeConfigError };

export const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

function nodeOnly(what: string): never {
  throw new KubeConfigError(
    `${what} reads kubeconfig files, which a browser has not: pass a RestConfig ({ server, credentials }) to RestClient`,
  );
}

export function parseKubeConfig(): never {
  return nodeOnly('parseKubeConfig');
}

export function mergeKubeConfigs(): never {
  return nodeOnly('mergeKubeConfigs');
}

export class KubeConfig {
  constructor() {
    nodeOnly('KubeConfig');
  }
  static fromString(): never {
    return nodeOnly('KubeConfig.fromString');
  }
  static fromFile(): never {
    return nodeOnly('KubeConfig.fromFile');
  }
  static fromFiles(): never {
    return nodeOnly('KubeConfig.fromFiles');
  }
  static inCluster(): never {
    return nodeOnly('KubeConfig.inCluster');
  }
  static loadDefault(): never {
    return nodeOnly('KubeConfig.loadDefault');
  }
}
