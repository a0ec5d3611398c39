import type { Socket } from 'node:net';

// What a new connection speaks, told from its first bytes, on the two kinds of port: the plain
// one serves HTTP/1.1 and h2c with prior knowledge, the TLS one TLS (and answers plain HTTP as
// Go's net/http does).

/** The HTTP/2 connection preface (RFC 9113 §3.4): a client speaking h2c with prior knowledge. */
export const H2_PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n');

/**
 * h2c once the whole preface is there, HTTP/1.1 as soon as the bytes so far differ from it;
 * undefined while they are a proper prefix of it (a preface split over segments).
 */
export function plainPortProtocol(head: Buffer): 'h2c' | 'http/1.1' | undefined {
  const n = Math.min(head.length, H2_PREFACE.length);
  if (head.compare(H2_PREFACE, 0, n, 0, n) !== 0) return 'http/1.1';
  return n === H2_PREFACE.length ? 'h2c' : undefined;
}

/**
 * The record headers Go's net/http takes for an HTTP request sent to its TLS port
 * (`tlsRecordHeaderLooksLikeHTTP`, server.go): the first 5 bytes of the usual methods.
 */
const HTTP_RECORD_HEADERS = new Set(['GET /', 'HEAD ', 'POST ', 'PUT /', 'OPTIO']);

/** Go's answer to those (server.go), word for word: clients print it. */
export const HTTP_TO_HTTPS_ANSWER =
  'HTTP/1.0 400 Bad Request\r\n\r\nClient sent an HTTP request to an HTTPS server.\n';

/**
 * `tls` for a handshake record (0x16), `http` for what Go's server answers 400, `other` for the
 * rest (left to the TLS layer to refuse); undefined until the 5 bytes of a record header are in.
 */
export function tlsPortProtocol(head: Buffer): 'tls' | 'http' | 'other' | undefined {
  if (head.length > 0 && head[0] === 0x16) return 'tls';
  if (head.length < 5) return undefined;
  return HTTP_RECORD_HEADERS.has(head.toString('latin1', 0, 5)) ? 'http' : 'other';
}

/**
 * Reads a new connection's first bytes until `decide` can tell what it speaks, puts them back
 * and hands the connection on, leaving no listener of its own on it. A connection that ends
 * before that is closed. The caller bounds the wait (a deadline that destroys the socket), so a
 * client trickling a byte at a time cannot hold the connection.
 */
export function sniffProtocol<T>(
  socket: Socket,
  decide: (head: Buffer) => T | undefined,
  decided: (verdict: T) => void,
): void {
  let head: Buffer = Buffer.alloc(0);
  const ended = () => socket.destroy();
  const readable = () => {
    let chunk: Buffer | null;
    while ((chunk = socket.read() as Buffer | null) !== null)
      head = head.length === 0 ? chunk : Buffer.concat([head, chunk]);
    const verdict = decide(head);
    if (verdict === undefined) return;
    socket.off('readable', readable);
    socket.off('end', ended);
    if (head.length > 0) socket.unshift(head);
    decided(verdict);
  };
  socket.on('readable', readable);
  socket.once('end', ended);
}
