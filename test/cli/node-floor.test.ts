/**
 * The engine floor (Node >= 22.12), said plainly: the `mockyard` bin checks the version before it
 * loads anything, so an older Node gets one line naming both versions and exit 1 instead of a
 * link error about a missing export. An older Node is played by the Node 24 of the tests with
 * `process.versions.node` rewritten before the bin runs (the bin reads nothing else).
 */
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const BIN = fileURLToPath(new URL('../../dist/cli/bin.js', import.meta.url))
const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { bin: { mockyard: string }; engines: { node: string }; version: string }

/** Runs the built bin as if on Node `version`. */
function runAs(version: string, args: string[]) {
  const pretend = `data:text/javascript,Object.defineProperty(process.versions, 'node', { value: ${JSON.stringify(version)} })`
  return spawnSync(process.execPath, ['--import', pretend, BIN, ...args], { encoding: 'utf8', timeout: 15_000 })
}

describe('the mockyard bin on a Node older than the engine floor', () => {
  it('is the file package.json names as the bin, and the floor is the one of engines', () => {
    expect(pkg.bin.mockyard).toBe('./dist/cli/bin.js')
    expect(pkg.engines.node).toBe('>=22.12')
  })

  it.each(['20.19.0', '22.11.0', '18.20.4'])('Node %s: one plain line naming both versions, exit 1, no stack trace', (version) => {
    const result = runAs(version, ['--version'])
    expect(result.stderr.trim()).toBe(`[mockyard] mockyard needs Node >= 22.12; this is Node ${version}. Install a newer Node (nodejs.org, or nvm install 22) and run it again.`)
    expect(result.stdout).toBe('')
    expect(result.status).toBe(1)
  })

  it.each(['22.12.0', '23.0.0', '24.1.0'])('Node %s: runs the CLI', (version) => {
    const result = runAs(version, ['--version'])
    expect(result.stderr).toBe('')
    expect(result.stdout.trim()).toBe(pkg.version)
    expect(result.status).toBe(0)
  })

  it('imports nothing before the check, so nothing can fail to link on an old Node', () => {
    const source = readFileSync(BIN, 'utf8')
    expect(source).not.toMatch(/^\s*import\s/m)
    expect(source).toMatch(/await import\("\.\/main\.js"\)/)
  })
})
