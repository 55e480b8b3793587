import net from 'node:net';

/* A request over a raw socket, for what fetch() cannot do: a body that trickles in, a declared size never sent, the moment the server closes. */

export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** ms from the first byte written to the answer's head. */
  answeredAfterMs: number;
  /** Body bytes the client had handed to the socket when the answer arrived. */
  bodyBytesWritten: number;
  /** The server ended the connection (FIN or reset) within 2 s of the answer. */
  closedByServer: boolean;
}

/**
 * One request over a raw socket: `head` (request line and headers), then `feed` writes body bytes
 * (it is told to stop once the answer arrives).
 */
export function rawRequest(
  port: number,
  head: string,
  feed?: (write: (b: Buffer) => Promise<boolean>, answered: () => boolean) => Promise<void>,
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const started = Date.now();
    let received = Buffer.alloc(0);
    let answeredAt = 0;
    let written = 0;
    let writtenAtAnswer = 0;
    let closed = false;
    const giveUp = setTimeout(() => finish(), 30_000);
    const finish = () => {
      clearTimeout(giveUp);
      socket.destroy();
      const text = received.toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      if (end < 0) return reject(new Error(`no answer (${text.length} bytes)`));
      const [statusLine, ...lines] = text.slice(0, end).split('\r\n');
      const headers: Record<string, string> = {};
      for (const l of lines) {
        const i = l.indexOf(':');
        headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
      }
      resolve({
        status: Number(/^HTTP\/1\.1 (\d{3})/.exec(statusLine ?? '')?.[1]),
        headers,
        body: text.slice(end + 4),
        answeredAfterMs: answeredAt - started,
        bodyBytesWritten: writtenAtAnswer,
        closedByServer: closed,
      });
    };
    let closeTimer: NodeJS.Timeout | undefined;
    socket.on('data', (d: Buffer) => {
      received = Buffer.concat([received, d]);
      if (!answeredAt && received.includes('\r\n\r\n')) {
        answeredAt = Date.now();
        writtenAtAnswer = written;
        // The answer is in: wait (up to 2 s) for the server to end the connection.
        closeTimer = setTimeout(finish, 2000);
      }
    });
    const onClosed = () => {
      if (closed) return;
      closed = true;
      if (answeredAt) {
        clearTimeout(closeTimer);
        // Let any last bytes of the answer arrive.
        setTimeout(finish, 50);
      } else finish();
    };
    socket.on('end', onClosed);
    socket.on('close', onClosed);
    socket.on('error', () => onClosed());
    socket.write(head);
    const write = (b: Buffer) =>
      new Promise<boolean>((r) => {
        if (socket.destroyed || closed) return r(false);
        written += b.length;
        if (socket.write(b)) r(true);
        else socket.once('drain', () => r(true));
      });
    void feed?.(write, () => answeredAt > 0 || closed).catch(() => {});
  });
}
