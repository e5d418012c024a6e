/**
 * A separate process that uploads the way ordinary HTTP clients do: the whole body is handed to
 * the client at once and the answer is read whenever it comes. Neither client stops sending when
 * an early answer arrives, so a server that closes the connection while the body is still in
 * flight makes them fail with EPIPE/ECONNRESET instead of showing the answer.
 *
 * It runs in its own process on purpose: with client and server on one event loop the client
 * always reads the early answer before it notices the reset, which hides the defect.
 *
 * Usage: node naive-upload.mjs '<json: { client, url, headers, chunked, bodyBytes, count }>'
 * Prints one JSON array: per attempt `{ status, json }` or `{ error }`, in order.
 */
import http from 'node:http';

const PIECE_BYTES = 64 * 1024;

/** `node:http` with `agent: false`: every piece written up front, then `end()`. */
function uploadWithNodeHttp(url, headers, body, chunked) {
  return new Promise((resolve, reject) => {
    const req = http.request(url, {
      method: 'POST',
      agent: false,
      headers: chunked ? { ...headers, 'transfer-encoding': 'chunked' } : { ...headers, 'content-length': body.length },
    });
    // Settling is first-come: an error after a complete answer changes nothing.
    req.on('error', reject);
    req.on('response', (res) => {
      const parts = [];
      res.on('data', (chunk) => parts.push(chunk));
      res.on('error', reject);
      res.on('end', () => resolve({ status: res.statusCode, text: Buffer.concat(parts).toString('utf8') }));
    });
    if (!chunked) {
      req.end(body);
      return;
    }
    for (let at = 0; at < body.length; at += PIECE_BYTES) req.write(body.subarray(at, at + PIECE_BYTES));
    req.end();
  });
}

/** The global `fetch` (undici): a Buffer body has a length; a stream body goes chunked. */
async function uploadWithFetch(url, headers, body, chunked) {
  let init = { method: 'POST', headers, body };
  if (chunked) {
    let at = 0;
    const stream = new ReadableStream({
      pull(controller) {
        if (at >= body.length) return controller.close();
        controller.enqueue(body.subarray(at, (at += PIECE_BYTES)));
      },
    });
    init = { method: 'POST', headers, body: stream, duplex: 'half' };
  }
  const response = await fetch(url, init);
  return { status: response.status, text: await response.text() };
}

const CLIENTS = { 'node:http': uploadWithNodeHttp, fetch: uploadWithFetch };

const { client, url, headers, chunked, bodyBytes, count } = JSON.parse(process.argv[2]);
const upload = CLIENTS[client];
// Spaces after a '{': the start of a JSON-RPC message that never ends.
const body = Buffer.alloc(bodyBytes, 0x20);
body[0] = 0x7b;

const outcomes = [];
for (let i = 0; i < count; i++) {
  try {
    const { status, text } = await upload(url, headers, body, chunked);
    let json;
    try {
      json = JSON.parse(text);
    } catch {
      json = text;
    }
    outcomes.push({ status, json });
  } catch (error) {
    outcomes.push({ error: error.code ?? error.cause?.code ?? String(error) });
  }
}
process.stdout.write(JSON.stringify(outcomes));
