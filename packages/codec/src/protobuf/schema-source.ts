// The schema source protobuf is read and written by (api's generated/schemas.ts, 673 KB). Its
// own module so a browser build can leave it out: package.json's "browser" field puts
// schema-source.browser.ts in its place.
export { schemaFor, schemaType } from '@listwatch/api';
