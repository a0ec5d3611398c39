// `@listwatch/client/node`: what needs Node — kubeconfig files, in-cluster service-account
// files, exec credential plugins, token files. The main entry exports them too, for Node users
// of earlier versions; in a browser bundle they throw.
export {
  EXEC_API_VERSIONS,
  ExecCredentialProvider,
  type ExecClusterInfo,
  type ExecConfig,
  type ExecCredentialOptions,
} from './clientcmd/exec-credential.js';
export {
  KubeConfig,
  KubeConfigError,
  mergeKubeConfigs,
  parseKubeConfig,
  SERVICE_ACCOUNT_DIR,
  type KubeConfigCluster,
  type KubeConfigContext,
  type KubeConfigData,
  type KubeConfigUser,
  type LoadOptions,
  type RestConfigOptions,
} from './clientcmd/kubeconfig.js';
export { TokenFileProvider, type TokenFileOptions } from './clientcmd/credentials.js';
