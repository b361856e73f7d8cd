import { styleText } from 'node:util'
import type { Logger } from '../core/types.js'

export type LogLevel = 'silent' | 'error' | 'warn' | 'info' | 'debug'
export const LOG_LEVELS: readonly LogLevel[] = ['silent', 'error', 'warn', 'info', 'debug']

const RANK: Record<LogLevel, number> = { silent: 0, error: 1, warn: 2, info: 3, debug: 4 }

/**
 * The default logger: one line per message on standard error, below the given level only.
 *
 * @example
 * const logger = createLogger('warn') // errors and warnings
 */
export function createLogger(level: LogLevel = 'info', stream: NodeJS.WritableStream = process.stderr): Logger {
  const write = (at: LogLevel, color: Parameters<typeof styleText>[0] | undefined, args: unknown[]) => {
    if (RANK[at] > RANK[level]) return
    const text = args.map((a) => (typeof a === 'string' ? a : a instanceof Error ? a.message : JSON.stringify(a))).join(' ')
    stream.write((color ? styleText(color, text, { stream }) : text) + '\n')
  }
  return {
    log: (...args) => write('info', undefined, args),
    debug: (...args) => write('debug', 'gray', args),
    info: (...args) => write('info', undefined, args),
    warn: (...args) => write('warn', 'yellow', args),
    error: (...args) => write('error', 'red', args),
  }
}
