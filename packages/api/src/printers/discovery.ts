import type { TableColumn } from '../resource-definition.js';
import {
  abbreviated,
  AGE_COLUMN,
  array,
  column,
  fieldDoc,
  fieldText,
  NAME_COLUMN,
} from './columns.js';

// The Table printer of discovery.k8s.io EndpointSlices (kubernetes pkg/printers/internalversion/
// printers.go printEndpointSlice).

/** formatDiscoveryPorts / formatDiscoveryEndpoints: up to three, then `+ N more...`. */
function firstThree(items: string[]): string {
  return items.length === 0 ? '<unset>' : abbreviated(items, 3, ',');
}

export const discoveryTableColumns = {
  endpointslices: [
    NAME_COLUMN,
    fieldText('AddressType', 'discovery.v1.EndpointSlice', 'addressType', ''),
    column('Ports', fieldDoc('discovery.v1.EndpointSlice', 'ports'), (o) =>
      firstThree(
        (array(o, 'ports') as { port?: number }[]).map((p) =>
          typeof p.port === 'number' ? String(p.port) : '<unset>',
        ),
      ),
    ),
    column('Endpoints', fieldDoc('discovery.v1.EndpointSlice', 'endpoints'), (o) =>
      firstThree(
        (array(o, 'endpoints') as { addresses?: string[] }[]).flatMap((e) => e.addresses ?? []),
      ),
    ),
    AGE_COLUMN,
  ],
} satisfies Record<string, TableColumn[]>;
