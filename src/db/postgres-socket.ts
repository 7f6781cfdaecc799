import { Socket } from 'node:net';
import type pg from 'pg';

/**
 * Client settings whose connection runs on a socket this process made and holds, through pg's
 * documented `stream` option (a factory pg calls once, when the client is made): it can be
 * closed at once, or kept from holding the process open, without reaching into pg's private
 * `connection.stream`. The same kind of socket pg makes itself on Node.js; a TLS connection
 * runs over it.
 */
export function onOwnSocket(config: pg.ClientConfig): { config: pg.ClientConfig; socket: Socket } {
  const socket = new Socket();
  return { config: { ...config, stream: () => socket }, socket };
}
