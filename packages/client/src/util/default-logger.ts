import { jsonLineLogger, type Logger } from '@listwatch/api';

/**
 * What informers and reflectors log to when given no logger: warnings and errors as JSON lines on
 * stderr, as klog prints client-go's. Silent by default, an informer against an unreachable
 * server said nothing at all; pass `silentLogger` to have that back.
 */
export const defaultClientLogger: Logger = jsonLineLogger({ level: 'warn', name: 'listwatch' });
