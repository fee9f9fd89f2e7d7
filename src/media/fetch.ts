import { lookup as dnsLookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { ApiError } from '../contract/errors.ts';
import { blockedRange } from './address-policy.ts';

export type Resolver = (hostname: string) => Promise<Array<{ address: string; family: 4 | 6 }>>;

export interface FetchPolicy {
  /** Lets 127.0.0.0/8 and ::1 through, for local development and tests. */
  allowLoopback: boolean;
  /** Defaults to dns.promises.lookup(hostname, { all: true, verbatim: true }). Tests inject a stub. */
  resolve?: Resolver;
  connectTimeoutMs?: number;
  totalTimeoutMs?: number;
  maxRedirects?: number;
  /**
   * Fetch from this host only (redirects included), whatever its addresses: a server the operator
   * configured (an image model's own, handing out its pictures by URL), private or not. Any
   * other host is refused; the address checks stay for everything else.
   */
  onlyHost?: string;
}

export interface FetchedMedia {
  bytes: Buffer;
  /** Lower-cased media type without parameters, e.g. 'image/png'. */
  contentType: string;
  finalUrl: string;
}

export interface FetchMediaOptions {
  /** The request field holding the URL, e.g. 'image.url'; named in every error. */
  param: string;
  /** 'image': PNG, JPEG, WebP, GIF or SVG; 'svg': SVG only. */
  accept: 'image' | 'svg';
  maxBytes: number;
  policy: FetchPolicy;
  /** The client's request; aborting it stops the fetch. */
  signal?: AbortSignal;
}

const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/webp', 'image/gif', 'image/svg+xml'];
const SVG_TYPES = ['image/svg+xml'];
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const USER_AGENT = 'Inkwell-media-fetch/1';

const defaultResolver: Resolver = async (hostname) => {
  const addresses = await dnsLookup(hostname, { all: true, verbatim: true });
  return addresses.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));
};

/** Abort reason of the total deadline, told apart from a client abort when mapping errors. */
class DeadlineExceeded extends Error {}

/**
 * Fetches a user-supplied http(s) URL without letting it reach private or reserved networks:
 * each hop's host is resolved once, every address is checked, and the connection is pinned to
 * the checked addresses (no second lookup a DNS rebinding could answer differently). Redirects are
 * followed by hand and checked the same way. The body is capped while streaming and never
 * decompressed. Every failure is an ApiError naming `param`, never echoing addresses, socket
 * errors or upstream bodies (those stay in `cause`, which is log-only).
 */
export async function fetchMedia(url: string, options: FetchMediaOptions): Promise<FetchedMedia> {
  const { param, policy, signal } = options;
  const fail = (reason: string, cause?: unknown) =>
    new ApiError('invalid_request', { param, message: `Could not fetch '${param}': ${reason}.`, cause });

  let current = checkScheme(parseUrl(url, param), (reason) => new ApiError('invalid_request', { param, message: `Invalid value for '${param}': ${reason}.` }));

  // One controller ends everything: the total deadline and the client's abort both fire it.
  const controller = new AbortController();
  const deadline = setTimeout(() => controller.abort(new DeadlineExceeded()), policy.totalTimeoutMs ?? 20_000);
  deadline.unref();
  const onClientAbort = () => controller.abort(signal?.reason);
  if (signal?.aborted) onClientAbort();
  else signal?.addEventListener('abort', onClientAbort, { once: true });

  let request: http.ClientRequest | undefined;
  try {
    const maxRedirects = policy.maxRedirects ?? 3;
    for (let redirects = 0; ; redirects++) {
      const targets = await pickAddresses(current, policy, controller.signal, fail);
      const exchange = await send(current, targets, options.accept, policy.connectTimeoutMs ?? 5_000, controller.signal);
      request = exchange.request;
      const { response } = exchange;
      const status = response.statusCode ?? 0;

      if (REDIRECT_STATUSES.has(status)) {
        request.destroy(); // agent: false, so this socket is never reused
        if (redirects >= maxRedirects) throw fail(`too many redirects (at most ${maxRedirects})`);
        const location = response.headers.location;
        if (!location) throw fail('the URL redirected without a Location');
        let next: URL;
        try {
          next = new URL(location, current);
        } catch {
          throw fail('the URL redirected to an invalid URL');
        }
        current = checkScheme(next, (reason) => fail(`the URL redirected to a URL that is not allowed (${reason})`));
        continue;
      }

      if (status < 200 || status > 299) throw fail(`the URL answered with HTTP ${status}`);
      // We ask for identity; anything else could be a decompression bomb, so it is refused unread.
      const encoding = (response.headers['content-encoding'] ?? '').trim().toLowerCase();
      if (encoding !== '' && encoding !== 'identity') throw fail('the response is compressed; only uncompressed responses are accepted');
      const contentType = mediaType(response.headers['content-type']);
      if (options.accept === 'svg' && !SVG_TYPES.includes(contentType)) {
        throw fail('the response is not an SVG (expected image/svg+xml)');
      }
      if (options.accept === 'image' && !IMAGE_TYPES.includes(contentType)) {
        throw fail(`the response is not an image (expected ${IMAGE_TYPES.join(', ')})`);
      }
      const bytes = await readCapped(response, options.maxBytes, () =>
        new ApiError('payload_too_large', { param, message: `Could not fetch '${param}': the response is larger than ${options.maxBytes} bytes.` }),
      );
      if (bytes.length === 0) throw fail('the response is empty');
      return { bytes, contentType, finalUrl: current.href };
    }
  } catch (error) {
    if (controller.signal.aborted) {
      const reason: unknown = controller.signal.reason;
      if (reason instanceof DeadlineExceeded) throw fail('the URL did not answer in time', error);
      if (reason instanceof ApiError) throw reason;
      throw fail('the request was cancelled', reason);
    }
    if (error instanceof ApiError) throw error;
    throw fail('the URL could not be reached', error);
  } finally {
    clearTimeout(deadline);
    signal?.removeEventListener('abort', onClientAbort);
    request?.destroy();
  }
}

function parseUrl(url: string, param: string): URL {
  try {
    return new URL(url);
  } catch {
    throw new ApiError('invalid_request', { param, message: `Invalid value for '${param}': not a valid URL.` });
  }
}

/** Only http(s), and no credentials: they would be sent to whatever host the URL names. */
function checkScheme(url: URL, refuse: (reason: string) => ApiError): URL {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw refuse('only http and https URLs are supported');
  if (url.username !== '' || url.password !== '') throw refuse('URLs with credentials are not supported');
  return url;
}

interface Target {
  address: string;
  family: 4 | 6;
}

/** Resolves the host once and returns the addresses to connect to, if every one is allowed. */
async function pickAddresses(url: URL, policy: FetchPolicy, signal: AbortSignal, fail: (reason: string, cause?: unknown) => ApiError): Promise<Target[]> {
  // WHATWG URL has already normalized IPv4 spellings (2130706433, 0x7f.1, 0177.0.0.1) to dotted
  // decimal; IPv6 literals keep their brackets.
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const literal = isIP(host);
  // The operator's own server (onlyHost): that host only, at whatever addresses it has.
  if (policy.onlyHost !== undefined && url.host !== policy.onlyHost) throw fail("the URL is not on the model server's own host");
  const blocked = (address: string) => policy.onlyHost === undefined && blockedRange(address, policy.allowLoopback) !== undefined;
  if (literal !== 0) {
    if (blocked(host)) throw fail('the URL points to a blocked network address');
    return [{ address: host, family: literal === 6 ? 6 : 4 }];
  }

  // A name that does not resolve and one that resolves to a blocked address get the same
  // answer, so callers cannot probe which internal names exist.
  const noPublicAddress = (cause?: unknown) => fail('the host does not resolve to an allowed public address', cause);
  const resolve = policy.resolve ?? defaultResolver;
  let addresses: Array<{ address: string }>;
  try {
    addresses = await untilAborted(Promise.resolve().then(() => resolve(host)), signal);
  } catch (error) {
    if (signal.aborted) throw error;
    throw noPublicAddress(error);
  }
  if (!Array.isArray(addresses) || addresses.length === 0) throw noPublicAddress();
  // One bad address refuses the whole name: we must not let the order of answers decide.
  if (addresses.some(({ address }) => typeof address !== 'string' || blocked(address))) {
    throw noPublicAddress();
  }
  return addresses.map(({ address }) => ({ address, family: isIP(address) === 6 ? 6 : 4 }));
}

/** DNS lookups cannot be cancelled, but we can stop waiting for them. */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/**
 * A lookup that answers with the already-checked addresses instead of asking DNS again, so Node
 * connects only there while Host and TLS SNI keep the URL's host name. Node 20 asks with
 * `all: true` for happy eyeballs and may then try each checked address (e.g. ::1, then
 * 127.0.0.1 for localhost); otherwise the first one is used.
 */
function pinnedLookup(targets: Target[]): LookupFunction {
  const [first] = targets as [Target, ...Target[]];
  return (_hostname, lookupOptions, callback) => {
    process.nextTick(() => {
      if (lookupOptions.all) callback(null, targets);
      else callback(null, first.address, first.family);
    });
  };
}

/** Sends the GET and waits for the response headers. */
function send(url: URL, targets: Target[], accept: 'image' | 'svg', connectTimeoutMs: number, signal: AbortSignal): Promise<{ request: http.ClientRequest; response: http.IncomingMessage }> {
  return new Promise((resolve, reject) => {
    const transport = url.protocol === 'https:' ? https : http;
    const request = transport.request(url, {
      method: 'GET',
      agent: false, // a fresh socket per hop: never a pooled connection to some other address
      lookup: pinnedLookup(targets),
      headers: {
        'user-agent': USER_AGENT,
        accept: accept === 'svg' ? SVG_TYPES.join(', ') : IMAGE_TYPES.join(', '),
        'accept-encoding': 'identity',
      },
    });
    let response: http.IncomingMessage | undefined;
    const connectTimer = setTimeout(() => request.destroy(new Error('connect timeout')), connectTimeoutMs);
    connectTimer.unref();
    // Aborting tears down the socket whether we are still waiting for headers or reading the body.
    const onAbort = () => {
      request.destroy(signal.reason);
      response?.destroy(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    request.once('socket', (socket) => socket.once('connect', () => clearTimeout(connectTimer)));
    request.once('response', (res) => {
      clearTimeout(connectTimer);
      response = res;
      resolve({ request, response: res });
    });
    // `on`, not `once`: errors after the response (already settled) must not go unhandled.
    request.on('error', (error) => {
      clearTimeout(connectTimer);
      reject(error);
    });
    request.once('close', () => {
      clearTimeout(connectTimer);
      signal.removeEventListener('abort', onAbort);
    });
    if (signal.aborted) onAbort();
    request.end();
  });
}

function mediaType(header: string | undefined): string {
  return (header ?? '').split(';')[0]!.trim().toLowerCase();
}

/** Reads the body, refusing an honest Content-Length over the cap unread and stopping a stream at the cap. */
async function readCapped(response: http.IncomingMessage, maxBytes: number, tooLarge: () => ApiError): Promise<Buffer> {
  const declared = response.headers['content-length'];
  if (declared !== undefined && /^\d+$/.test(declared) && Number(declared) > maxBytes) throw tooLarge();
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of response as AsyncIterable<Buffer>) {
    total += chunk.length;
    if (total > maxBytes) throw tooLarge(); // leaving the loop destroys the response and its socket
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, total);
}
