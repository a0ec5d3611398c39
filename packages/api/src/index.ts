export * from './object-meta.js';
export * from './status.js';
export * from './watch-event.js';
export * from './field-error.js';
export * from './api-error.js';
export * from './resource-definition.js';
export * from './human-duration.js';
export * from './builtin-resources.js';
