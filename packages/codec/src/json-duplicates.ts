// Duplicate keys in a JSON document, found as sigs.k8s.io/json's strict decoder reports them
// (DisallowDuplicateFields: `duplicate field "metadata.labels.a"`, the path built from its
// strictFieldStack). JSON.parse keeps the last value of a duplicated key without a word, so the
// text is looked at again — cheaply first: a document whose text has as many keys as its parsed
// value has properties holds no duplicate, and only one that does not is scanned for paths.

/** Where a duplicated key sits: its strict-error path and the segments leading to it. */
export interface DuplicateField {
  /** `spec.containers[0].name`: keys joined with `.`, list indexes in brackets. */
  path: string;
  segments: readonly (string | number)[];
}

// Every string literal of a JSON text, each matched from its opening quote (the unrolled form
// irregexp runs fastest): removing them leaves only structure, where a `:` can only separate a
// key from its value.
const STRINGS = /"[^"\\]*(?:\\.[^"\\]*)*"/g;

function colons(text: string): number {
  let count = 0;
  for (let i = text.indexOf(':'); i >= 0; i = text.indexOf(':', i + 1)) count++;
  return count;
}

/** The properties of a decoded document, nested ones included. */
export function propertyCount(value: unknown): number {
  return keysInValue(value);
}

// Iterative: a document may nest deeper than the call stack goes (kube allows 10000 levels).
function keysInValue(value: unknown): number {
  let count = 0;
  const stack: unknown[] = [value];
  while (stack.length) {
    const next = stack.pop();
    if (typeof next !== 'object' || next === null) continue;
    if (Array.isArray(next)) {
      for (const item of next) stack.push(item);
      continue;
    }
    for (const key in next) {
      count++;
      stack.push((next as Record<string, unknown>)[key]);
    }
  }
  return count;
}

/**
 * The duplicated keys of `text`, a JSON document that `parsed` is JSON.parse's value of, in
 * document order (one entry per repeated occurrence). Cheap for the documents that have none:
 * the parsed value's properties are counted, then the text's `:`s (every key has one; so may
 * strings, whose colons are only set aside, by one native regular-expression pass, when the
 * counts differ); only a document with fewer properties than keys is scanned for paths.
 */
export function duplicateJsonFields(text: string, parsed: unknown): DuplicateField[] {
  if (typeof parsed !== 'object' || parsed === null) return [];
  const properties = keysInValue(parsed);
  if (colons(text) === properties) return [];
  if (colons(text.replace(STRINGS, '')) === properties) return [];
  return new DuplicateScanner(text).scan();
}

/** A scanner over text already known to be valid JSON: it does not check syntax. */
class DuplicateScanner {
  private i = 0;
  private readonly found: DuplicateField[] = [];

  constructor(private readonly text: string) {}

  scan(): DuplicateField[] {
    this.value('', []);
    return this.found;
  }

  private space(): void {
    const t = this.text;
    for (;;) {
      const c = t.charCodeAt(this.i);
      if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) this.i++;
      else return;
    }
  }

  private string(): string {
    const t = this.text;
    const start = this.i;
    this.i++;
    let escaped = false;
    for (;;) {
      const c = t.charCodeAt(this.i);
      if (c === 0x5c) {
        escaped = true;
        this.i += 2;
      } else if (c === 0x22) {
        this.i++;
        break;
      } else this.i++;
    }
    const raw = t.slice(start, this.i);
    return escaped ? (JSON.parse(raw) as string) : raw.slice(1, -1);
  }

  private value(path: string, segments: (string | number)[]): void {
    this.space();
    const t = this.text;
    const c = t.charCodeAt(this.i);
    if (c === 0x7b /* { */) {
      this.i++;
      this.space();
      if (t.charCodeAt(this.i) === 0x7d) {
        this.i++;
        return;
      }
      const seen = new Set<string>();
      for (;;) {
        this.space();
        const key = this.string();
        this.space();
        this.i++; // the colon
        const childPath = path ? `${path}.${key}` : key;
        const childSegments = [...segments, key];
        if (seen.has(key)) this.found.push({ path: childPath, segments: childSegments });
        else seen.add(key);
        this.value(childPath, childSegments);
        this.space();
        if (t.charCodeAt(this.i++) !== 0x2c /* , */) return;
      }
    }
    if (c === 0x5b /* [ */) {
      this.i++;
      this.space();
      if (t.charCodeAt(this.i) === 0x5d) {
        this.i++;
        return;
      }
      for (let n = 0; ; n++) {
        this.value(`${path}[${n}]`, [...segments, n]);
        this.space();
        if (t.charCodeAt(this.i++) !== 0x2c) return;
      }
    }
    if (c === 0x22) {
      this.string();
      return;
    }
    // A number or a literal: up to the next delimiter.
    while (this.i < t.length) {
      const d = t.charCodeAt(this.i);
      if (
        d === 0x2c ||
        d === 0x7d ||
        d === 0x5d ||
        d === 0x20 ||
        d === 0x09 ||
        d === 0x0a ||
        d === 0x0d
      )
        return;
      this.i++;
    }
  }
}
