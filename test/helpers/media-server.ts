import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the media server answers on one path: 200 unless told, with these headers and body. */
export interface MediaAnswer {
  status?: number;
  headers?: Record<string, string>;
  body?: string | Buffer;
}

/** A file of this content type. */
export const mediaFile = (contentType: string, body: string | Buffer): MediaAnswer => ({ headers: { 'content-type': contentType }, body });

export interface MediaServer {
  /** `http://127.0.0.1:<port>`, without a trailing slash. */
  url: string;
  close(): Promise<void>;
}

/**
 * A loopback server for URL inputs (images and SVGs fetched by the service, which tests let
 * reach 127.0.0.1 with media.allow_loopback_urls): each path answers as `routes` says, any
 * other path 404.
 */
export async function startMediaServer(routes: Record<string, MediaAnswer>): Promise<MediaServer> {
  const server = createServer((request, response) => {
    const answer = Object.hasOwn(routes, request.url ?? '') ? routes[request.url!]! : { status: 404 };
    response.writeHead(answer.status ?? 200, answer.headers).end(answer.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve()))),
  };
}
