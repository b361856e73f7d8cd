/**
 * docs/behaviour.md, "Signals and shutdown": `npx mockyard` runs the CLI through npm and `sh -c`,
 * so a SIGTERM sent to what a script started (npm) stops npm and the shell and never reaches
 * mockyard. Started by npm, the CLI stops once its parent is gone, rather than live on as an
 * orphan holding its port; started otherwise (a shell, a service manager), it keeps running.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { afterEach, describe, expect, it } from 'vitest'
import { CLI } from './support.js'
import { fileURLToPath } from 'node:url'

const ROUTES = fileURLToPath(new URL('../../mocks/routes.json', import.meta.url))
const started: number[] = []

afterEach(() => {
  for (const pid of started.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL')
    } catch {}
  }
})

/** The CLI started through `sh -c`, as npm runs a bin; resolves with the shell, the CLI's pid and its URL. */
function throughShell(env: NodeJS.ProcessEnv): Promise<{ shell: ChildProcess; pid: number; url: string; output: () => string; closed: Promise<void> }> {
  const shell = spawn('sh', ['-c', `"${process.execPath}" "${CLI}" --port 0 --host 127.0.0.1 --routes "${ROUTES}" & echo "pid $!"; wait`], { env, stdio: ['ignore', 'pipe', 'pipe'] })
  let text = ''
  shell.stderr!.on('data', (chunk) => (text += chunk))
  // The pipes close once every process holding them (the shell, the CLI) has ended.
  const closed = new Promise<void>((resolve) => shell.stdout!.on('close', () => resolve()))
  return new Promise((resolve, reject) => {
    shell.stdout!.on('data', (chunk) => {
      text += chunk
      const pid = /pid (\d+)/.exec(text)?.[1]
      const url = /listening on (http:\/\/\S+)/.exec(text)?.[1]
      if (pid && url) {
        started.push(Number(pid))
        resolve({ shell, pid: Number(pid), url, output: () => text, closed })
      }
    })
    shell.on('exit', () => reject(new Error(`the CLI did not start:\n${text}`)))
  })
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

describe('the CLI and the process that started it', () => {
  it('started by npm (npx mockyard, npm run), it stops once npm and its shell are gone: no orphan keeps the port', async () => {
    const cli = await throughShell({ ...process.env, npm_command: 'exec' })
    expect((await fetch(`${cli.url}/v1/users`)).status).toBe(200)
    // What a SIGTERM to npm leaves: npm and its shell gone, the CLI not signalled.
    cli.shell.kill('SIGKILL')
    await cli.closed
    // Gone (and reaped by init) within a few seconds.
    for (let i = 0; i < 50 && alive(cli.pid); i++) await new Promise((resolve) => setTimeout(resolve, 100))
    expect(alive(cli.pid)).toBe(false)
    expect(cli.output()).toContain('[mockyard] npm, which started this process, has ended: stopping as on SIGTERM.')
    await expect(fetch(`${cli.url}/v1/users`)).rejects.toThrow()
  })

  it('started otherwise, it keeps serving when its parent goes (a shell closed behind nohup, a service manager)', async () => {
    const env = { ...process.env }
    delete env.npm_command
    const cli = await throughShell(env)
    cli.shell.kill('SIGKILL')
    // Past several of the checks the npm case makes (every 500 ms).
    await new Promise((resolve) => setTimeout(resolve, 1500))
    expect(alive(cli.pid)).toBe(true)
    expect((await fetch(`${cli.url}/v1/users`)).status).toBe(200)
  })
})
