import { fileURLToPath } from 'node:url';

/**
 * kubernetes/api's golden fixtures (testdata/kubernetes-api-golden: `<group>.<version>.<Kind>`
 * as .json and .pb), for the tests that compare against the real wire format.
 */
export const goldenDir = fileURLToPath(
  new URL('../testdata/kubernetes-api-golden', import.meta.url),
);
