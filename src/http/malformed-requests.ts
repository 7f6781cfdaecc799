import { randomUUID } from 'node:crypto';
import { STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ERROR_STATUS, type ErrorBody, type ErrorCode } from '../errors.js';
import { sendError } from './errors.js';

// Requests that go wrong before a route is found still get the JSON error body (decisions §4).
// Some never reach Fastify: Node's HTTP parser refuses them (clientError), or Node answers them
// itself (a bad Expect, CONNECT); for those the answer is written here, on the socket.

function errorBody(code: ErrorCode, message: string, requestId: string): string {
  const body: ErrorBody = { errore: message, code, request_id: requestId };
  return JSON.stringify(body);
}

/** A complete HTTP/1.1 error response that closes the connection, as raw bytes. */
export function rawErrorResponse(code: ErrorCode, message: string, extraHeaders: Record<string, string> = {}): string {
  const requestId = randomUUID();
  const body = errorBody(code, message, requestId);
  const status = ERROR_STATUS[code];
  const headers = {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(body)),
    'x-request-id': requestId,
    connection: 'close',
    ...extraHeaders,
  };
  const head = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  return `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${head}\r\n${body}`;
}

/** What Node's parser refused, as our code and a message a client can act on. */
function describeClientError(error: NodeJS.ErrnoException): { code: ErrorCode; message: string } {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return { code: 'header_too_large', message: 'the request headers are larger than this server accepts (16 KiB)' };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { code: 'request_timeout', message: 'the request was not received in time' };
    case 'HPE_INVALID_METHOD':
      return { code: 'bad_request', message: 'unknown HTTP method (methods are upper-case: GET, POST, …)' };
    case 'HPE_INVALID_CHUNK_SIZE':
    case 'HPE_INVALID_TRANSFER_ENCODING':
    case 'HPE_UNEXPECTED_CONTENT_LENGTH':
    case 'HPE_INVALID_CONTENT_LENGTH':
      return { code: 'bad_request', message: 'the body framing is malformed (Content-Length or chunked encoding)' };
    case 'HPE_INVALID_HEADER_TOKEN':
    case 'HPE_LF_EXPECTED':
    case 'HPE_CR_EXPECTED':
      return { code: 'bad_request', message: 'a request header is malformed' };
    default:
      return { code: 'bad_request', message: 'the request is malformed' };
  }
}

/**
 * Fastify's clientErrorHandler: Node's parser refused the request. Answers with the JSON body
 * unless a response is already under way on this connection, then closes it.
 */
export function onClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const inFlight = (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage;
  if (socket.writable && !inFlight?.headersSent) {
    const { code, message } = describeClientError(error);
    socket.end(rawErrorResponse(code, message), () => socket.destroy());
  } else socket.destroy();
}

/** Fastify's frameworkErrors: a URL the router cannot decode, or a path segment over its limit. */
export function onFrameworkError(error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  if (error.code === 'FST_ERR_BAD_URL') sendError(reply, 'bad_request', 'the URL is malformed (invalid percent-encoding)');
  else if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') sendError(reply, 'uri_too_long', 'a path segment is longer than 100 characters');
  else sendError(reply, 'internal_error', 'internal error');
}

/** Requests Node itself would answer with an empty body: a bad Expect header, and CONNECT. */
function answerNodeLevelRefusals(server: Server): void {
  server.on('checkExpectation', (_request: IncomingMessage, response: ServerResponse) => {
    const requestId = randomUUID();
    const body = errorBody('expectation_failed', 'the only expectation this server meets is Expect: 100-continue', requestId);
    response
      .writeHead(ERROR_STATUS.expectation_failed, {
        'content-type': 'application/json; charset=utf-8',
        'content-length': Buffer.byteLength(body),
        'x-request-id': requestId,
        connection: 'close',
      })
      .end(body);
  });
  server.on('connect', (_request: IncomingMessage, socket: Duplex) => {
    socket.end(rawErrorResponse('bad_request', 'CONNECT is not served: this server is not a proxy'), () => socket.destroy());
  });
}

/**
 * Before any route hook: an HTTP/1.1 request without Host (Node is told not to answer it with an
 * empty 400 itself), and a path that exists on no host (404 at once, whatever the body: it is
 * never read; the connection closes rather than drain it).
 */
export function registerMalformedRequestAnswers(app: FastifyInstance): void {
  answerNodeLevelRefusals(app.server);
  app.addHook('onRequest', (request, reply, done) => {
    const raw = request.raw;
    if (raw.httpVersion === '1.1' && raw.headers.host === undefined) {
      reply.header('connection', 'close');
      return sendError(reply, 'bad_request', 'an HTTP/1.1 request needs a Host header');
    }
    if (request.is404) {
      const hasBody = raw.headers['content-length'] !== undefined || raw.headers['transfer-encoding'] !== undefined;
      if (hasBody && !raw.complete) reply.header('connection', 'close');
      return sendError(reply, 'not_found', `no route for ${request.method} ${request.url.split('?')[0]}`);
    }
    done();
  });
}
