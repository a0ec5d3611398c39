import { ApiError } from './api-error.js';

const TRUE = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);
const FALSE = new Set(['0', 'f', 'F', 'FALSE', 'false', 'False']);

/**
 * Go's strconv.ParseBool, or undefined when `value` is none of its spellings. For flags (pflag) and
 * `pretty`; query booleans are queryBool, where every spelling is valid.
 */
export function tryParseBool(value: string): boolean | undefined {
  if (TRUE.has(value)) return true;
  if (FALSE.has(value)) return false;
  return undefined;
}

/**
 * Go's strconv.ParseBool: `1 t T TRUE true True` and `0 f F FALSE false False`. Anything else is
 * a 400 BadRequest with Go's message, `strconv.ParseBool: parsing "x": invalid syntax`.
 */
export function parseBool(value: string): boolean {
  const parsed = tryParseBool(value);
  if (parsed === undefined) {
    throw ApiError.badRequest(
      `strconv.ParseBool: parsing ${JSON.stringify(value)}: invalid syntax`,
    );
  }
  return parsed;
}
