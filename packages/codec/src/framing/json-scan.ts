// The bytes JSON's structure is made of, for the scanners that find where values end without
// parsing them (concatenated documents, the elements of a LIST).
export const QUOTE = 0x22;
export const BACKSLASH = 0x5c;
export const COMMA = 0x2c;
export const COLON = 0x3a;
export const LBRACE = 0x7b;
export const RBRACE = 0x7d;
export const LBRACKET = 0x5b;
export const RBRACKET = 0x5d;

export function isJsonSpace(byte: number): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

/**
 * The index of the first `"` at or after `from` that is not escaped — not preceded by an odd run
 * of backslashes counted back no further than `floor` (the first byte of the string's content) —
 * or -1 if there is none in `buf`. Jumps from quote to quote at memchr speed: inside JSON strings,
 * where most of a Kubernetes object's bytes are, nothing else matters.
 */
export function unescapedQuote(buf: Buffer, from: number, floor: number): number {
  for (;;) {
    const quote = buf.indexOf(QUOTE, from);
    if (quote < 0) return -1;
    if (backslashesBefore(buf, quote, floor) % 2 === 0) return quote;
    from = quote + 1;
  }
}

/** How many backslashes run back from `end` (exclusive), stopping at `floor`. */
export function backslashesBefore(buf: Buffer, end: number, floor: number): number {
  let run = 0;
  while (end - run - 1 >= floor && buf[end - run - 1] === BACKSLASH) run++;
  return run;
}
