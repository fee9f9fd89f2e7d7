import { createServer, type AddressInfo, type Socket } from 'node:net';

/**
 * Just enough of a Redis server on 127.0.0.1 for a client to connect and ping it (INFO for
 * ioredis' ready check, PING, OK to anything else), and to go away on demand: readiness tests
 * need a Redis that was there at start and then is not.
 */
export interface FakeRedis {
  url: string;
  /** Stops answering: closes the port and drops every connection. */
  stop(): Promise<void>;
}

/** The command names in a buffer of RESP arrays (`*N\r\n$len\r\nNAME\r\n…`), and what is left unparsed. */
function commandsIn(buffer: string): { names: string[]; rest: string } {
  const names: string[] = [];
  let at = 0;
  for (;;) {
    const header = /^\*(\d+)\r\n/.exec(buffer.slice(at));
    if (!header) break;
    let cursor = at + header[0].length;
    const parts: string[] = [];
    for (let i = 0; i < Number(header[1]); i++) {
      const length = /^\$(\d+)\r\n/.exec(buffer.slice(cursor));
      if (!length || buffer.length < cursor + length[0].length + Number(length[1]) + 2) return { names, rest: buffer.slice(at) };
      cursor += length[0].length;
      parts.push(buffer.slice(cursor, cursor + Number(length[1])));
      cursor += Number(length[1]) + 2;
    }
    names.push((parts[0] ?? '').toUpperCase());
    at = cursor;
  }
  return { names, rest: buffer.slice(at) };
}

function answer(name: string): string {
  if (name === 'PING') return '+PONG\r\n';
  if (name === 'INFO') {
    const info = '# Server\r\nredis_version:7.2.0\r\nloading:0\r\n';
    return `$${Buffer.byteLength(info)}\r\n${info}\r\n`;
  }
  return '+OK\r\n';
}

export async function startFakeRedis(): Promise<FakeRedis> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let pending = '';
    socket.on('data', (chunk) => {
      const { names, rest } = commandsIn(pending + chunk.toString('latin1'));
      pending = rest;
      for (const name of names) socket.write(answer(name));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `redis://127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
  };
}
