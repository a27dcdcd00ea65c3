import { pino } from 'pino';
import type { JsonRecord } from './log.js';

// The json mode of the log: pino, with no transport (no worker thread) and a synchronous
// destination, so that a line is on stderr before the process can exit, and in order with the
// lines written beside it. A stderr whose reader went away drops lines, never stops the session.

export function jsonLog(destination: NodeJS.WritableStream | number = 2): JsonRecord {
  const stream = typeof destination === 'number' ? pino.destination({ dest: destination, sync: true }) : destination;
  stream.on('error', () => {});
  const logger = pino(
    {
      base: null,
      messageKey: 'message',
      timestamp: () => `,"time":"${new Date().toISOString()}"`,
      formatters: { level: (label) => ({ level: label }) },
    },
    stream,
  );
  return (level, event, message, fields) => logger[level]({ event, ...fields }, message);
}
