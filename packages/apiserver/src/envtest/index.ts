// `@listwatch/apiserver/envtest`: controller-runtime's envtest without binaries.
export {
  readCrds,
  startTestEnvironment,
  type TestEnvironment,
  type TestEnvironmentConfig,
  type TestEnvironmentOptions,
} from './environment.js';
