import { findBuiltinResource, type ResourceDefinition } from '@listwatch/api';

/** The built-in pods definition: its table columns follow kube's pod printer. */
export const podDefinition: ResourceDefinition = findBuiltinResource('pods')!;
