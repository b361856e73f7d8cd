import { formatMessage } from '../core/errors.js'

/** The codes of a host that cannot be listened on: an unknown name, or not an address of this machine. */
const HOST_CODES: ReadonlySet<string> = new Set(['ENOTFOUND', 'EADDRNOTAVAIL', 'EAI_AGAIN', 'EAI_FAIL'])

/** Whether an error came from listening (the port, or the host's lookup), not from anything else a command does at start. */
export function isListenError(error: NodeJS.ErrnoException): boolean {
  return error.syscall === 'listen' || error.syscall === 'bind' || HOST_CODES.has(error.code ?? '')
}

/** The message of a listener that could not start, with the fix for what failed: the host or the port. */
export function listenProblem(host: string, port: number, error: NodeJS.ErrnoException): string {
  const fix = HOST_CODES.has(error.code ?? '') ? 'Pick a host this machine has with --host, such as 127.0.0.1, ::1 or 0.0.0.0.' : 'Pick another port with --port, or --port 0 for a free one.'
  return formatMessage(`cannot listen on ${host}:${port}: ${error.code ?? error.message}. ${fix}`)
}
