import type { ExecConfig } from './exec-credential.js';

// What a kubeconfig holds once parsed (k8s.io/client-go tools/clientcmd/api/types.go: Config,
// Cluster, AuthInfo, Context), with kubectl's YAML names in camelCase.

export interface KubeConfigCluster {
  name: string;
  server: string;
  /** A file path, absolute once loaded from a file. */
  certificateAuthority?: string;
  /** Base64 PEM. */
  certificateAuthorityData?: string;
  insecureSkipTlsVerify?: boolean;
  tlsServerName?: string;
  proxyUrl?: string;
  /** `extensions[client.authentication.k8s.io/exec].extension`, handed to exec plugins. */
  execExtension?: unknown;
}

export interface KubeConfigUser {
  name: string;
  token?: string;
  tokenFile?: string;
  clientCertificate?: string;
  clientCertificateData?: string;
  clientKey?: string;
  clientKeyData?: string;
  username?: string;
  password?: string;
  exec?: ExecConfig;
}

export interface KubeConfigContext {
  name: string;
  cluster: string;
  user: string;
  namespace?: string;
}

/** The parsed content of one kubeconfig (or the merge of several). */
export interface KubeConfigData {
  clusters: KubeConfigCluster[];
  users: KubeConfigUser[];
  contexts: KubeConfigContext[];
  currentContext: string;
}
