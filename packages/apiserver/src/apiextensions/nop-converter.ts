import type { KubeObject } from '@listwatch/api';
import type { StorageConversion } from '../registry/generic/converting-storage.js';

// Conversion strategy None between the versions of one CRD (apiextensions-apiserver
// pkg/apiserver/conversion/nop_converter.go): only apiVersion changes. Objects are stored in the
// storage version and read in the version asked for, through the registry's ConvertingStorage.

function withApiVersion(object: KubeObject, apiVersion: string): KubeObject {
  return object.apiVersion === apiVersion ? object : { ...object, apiVersion };
}

/**
 * A CRD's objects in `servedVersion`, stored in `storageVersion`; `defaults` (the served
 * version's structural defaulting) applies to what is read, as kube defaults objects read from
 * etcd.
 */
export function nopConversion(
  servedVersion: string,
  storageVersion: string,
  defaults?: (object: KubeObject) => void,
): StorageConversion {
  return {
    toStored: (object) => withApiVersion(object, storageVersion),
    fromStored(object) {
      if (!defaults) return withApiVersion(object, servedVersion);
      // Stored objects may be shared (memory storage): default a copy.
      const copy = structuredClone(object);
      defaults(copy);
      return withApiVersion(copy, servedVersion);
    },
  };
}
