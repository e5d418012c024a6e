import type { IncomingMessage, ServerResponse } from 'node:http';

/** How long a client whose body was refused may go on sending before its connection is dropped. */
export const LINGER_MS = 5_000;

/**
 * Ends `res`, whose answer is already written in full, once the client has sent the rest of
 * its request body; the rest is read and thrown away, never kept. If the body has not ended
 * after `lingerMs`, the connection is destroyed instead.
 *
 * Why not end at once: with `Connection: close`, Node destroys the socket as soon as the
 * response finishes, and closing a socket with unread bytes in its receive queue makes the
 * kernel send RST. A client still uploading (most clients write the whole body before they
 * read) then fails with EPIPE or ECONNRESET and never sees the answer. Draining first makes the
 * close a plain FIN after the client's last byte: the "lingering close" of Apache and nginx.
 * The deadline keeps a client that never stops sending from holding the connection.
 */
export function endAfterBody(req: IncomingMessage, res: ServerResponse, lingerMs = LINGER_MS): void {
  const deadline = setTimeout(() => res.destroy(), lingerMs);
  // A pending deadline must not keep the process alive on shutdown.
  deadline.unref();
  const settle = (): void => {
    clearTimeout(deadline);
    req.off('end', finish);
    req.off('close', settle);
  };
  const finish = (): void => {
    settle();
    res.end();
  };
  if (req.readableEnded) {
    finish();
    return;
  }
  req.once('end', finish);
  // The client went away first: nothing is left to end.
  req.once('close', settle);
  // Flowing with no 'data' listener: every chunk is dropped as it arrives.
  req.resume();
}
