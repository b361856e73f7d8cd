#!/usr/bin/env node
/**
 * The `mockyard` command's first file: it checks the Node version before anything else loads.
 * `main.js` (and the packages it imports) use APIs and syntax of Node >= 22.12; on an older Node
 * they would fail while linking, with an error about a missing export that says nothing of the
 * cause. This file imports nothing, so it runs on any Node, and loads the CLI only when it can.
 */

/** The engine floor of package.json (`engines.node`). */
const FLOOR = [22, 12] as const

/** True when `version` (`22.12.0`, `v20.1.0`) is at least the floor. */
export function meetsFloor(version: string): boolean {
  const [major = 0, minor = 0] = version.replace(/^v/, '').split('.').map(Number)
  return major > FLOOR[0] || (major === FLOOR[0] && minor >= FLOOR[1])
}

if (meetsFloor(process.versions.node)) {
  await import('./main.js')
} else {
  process.stderr.write(`[mockyard] mockyard needs Node >= ${FLOOR.join('.')}; this is Node ${process.versions.node}. Install a newer Node (nodejs.org, or nvm install 22) and run it again.\n`)
  process.exitCode = 1
}
