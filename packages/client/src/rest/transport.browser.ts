import { ApiError } from '@listwatch/api';
import type { Dispatcher } from 'undici';
import type { Credentials } from '../clientcmd/credentials.js';
import type { TransportOptions } from './transport.js';

/**
 * transport.ts in a browser: the browser keeps the connections (and HTTP/2, TLS, proxies), so
 * there is nothing to pool here. Client certificates cannot be given to fetch.
 */
export class Transport {
  readonly origin: string;
  private closed = false;

  constructor(options: TransportOptions) {
    this.origin = options.server.origin;
  }

  pool(creds: Credentials): Dispatcher {
    this.check(creds);
    return BROWSER;
  }

  watchDispatcher(creds: Credentials): { dispatcher: Dispatcher; release: () => void } {
    this.check(creds);
    return { dispatcher: BROWSER, release: () => {} };
  }

  close(): Promise<void> {
    this.closed = true;
    return Promise.resolve();
  }

  private check(creds: Credentials): void {
    if (this.closed) throw ApiError.serviceUnavailable('the REST client is closed');
    if (creds.clientCertificate)
      throw ApiError.badRequest('a browser cannot present a client certificate to fetch');
  }
}

/** undici.browser.ts ignores the dispatcher: any object stands for "the browser's". */
const BROWSER = {} as Dispatcher;
