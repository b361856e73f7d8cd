/**
 * How the long-running commands (`mockyard`, `mockyard record`) learn that they should stop
 * (docs/behaviour.md, "Signals and shutdown").
 */
import { formatMessage } from '../core/errors.js'

/** How often a command started by npm checks that npm is still there, in ms. */
const PARENT_CHECK_MS = 500

/**
 * Calls `stop` on SIGINT and SIGTERM; and, when npm started the command (`npx mockyard`,
 * `npm run mock`), once npm is gone. npm runs a package's bin through `sh -c`, so a SIGTERM sent
 * to the process a script or CI step started (`kill $!`, `child.kill()` in a test's global setup)
 * stops npm and that shell and never reaches mockyard, which would live on as an orphan holding
 * its port. Its parent gone, it stops as on SIGTERM.
 */
export function onStop(stop: (signal: NodeJS.Signals) => void): void {
  process.on('SIGINT', () => stop('SIGINT'))
  process.on('SIGTERM', () => stop('SIGTERM'))
  if (process.env.npm_command === undefined) return
  const parent = process.ppid
  const check = setInterval(() => {
    if (process.ppid === parent) return
    clearInterval(check)
    process.stderr.write(formatMessage('npm, which started this process, has ended: stopping as on SIGTERM.') + '\n')
    stop('SIGTERM')
  }, PARENT_CHECK_MS)
  check.unref()
}
