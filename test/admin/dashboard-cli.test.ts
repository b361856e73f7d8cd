/**
 * The CLI names the dashboard's URL on start (docs/behaviour.md, "The dashboard"): a second line,
 * on stderr, while stdout keeps the one listening line. Runs the built `dist/cli/main.js`.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'

const CLI = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url))
const EXAMPLES = fileURLToPath(new URL('../fixtures/examples/', import.meta.url))

const children: ChildProcess[] = []
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL')
})

function start(args: string[]) {
  const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
  children.push(child)
  const out = { stdout: '', stderr: '' }
  child.stdout!.on('data', (chunk) => (out.stdout += chunk))
  child.stderr!.on('data', (chunk) => (out.stderr += chunk))
  return { child, out }
}

describe('mockyard (CLI) and the dashboard', () => {
  it('prints the dashboard URL on stderr, and the URL serves the page', async () => {
    const { out } = start(['--routes', EXAMPLES + 'routes.json', '--data', EXAMPLES + 'data', '--port', '0', '--latency', '0', '--host', '127.0.0.1'])
    await expect.poll(() => out.stderr, { timeout: 10_000 }).toMatch(/mockyard dashboard on http:\/\/127\.0\.0\.1:\d+\/__mockyard\/\n/)
    expect(out.stdout).toMatch(/^mockyard listening on http:\/\/127\.0\.0\.1:\d+\n$/)
    const url = /mockyard dashboard on (\S+)/.exec(out.stderr)![1]!
    const page = await fetch(url)
    expect(page.status).toBe(200)
    expect(await page.text()).toContain('<title>mockyard dashboard</title>')
  })

  it('names a loopback URL when bound to every interface', async () => {
    const { out } = start(['--routes', EXAMPLES + 'routes.json', '--port', '0', '--latency', '0', '--host', '0.0.0.0'])
    await expect.poll(() => out.stderr, { timeout: 10_000 }).toMatch(/mockyard dashboard on http:\/\/localhost:\d+\/__mockyard\/\n/)
    expect(out.stdout).toMatch(/^mockyard listening on http:\/\/0\.0\.0\.0:\d+\n$/)
  })
})
