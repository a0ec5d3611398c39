// The one global the codec needs beyond the web platform: Node's Buffer (the `buffer` package
// is the same API). Imported first by browser.ts; a side effect on purpose (package.json
// "sideEffects" names this file).
import { Buffer } from 'buffer';

globalThis.Buffer ??= Buffer as unknown as typeof globalThis.Buffer;
