/** docs/behaviour.md, "Requests on the wire": the CLI's listening line names a URL a program can use (the built CLI). */
import { spawn, type ChildProcess } from 'node:child_process'
import { networkInterfaces } from 'node:os'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'

const CLI = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url))
const EXAMPLES = fileURLToPath(new URL('../fixtures/examples/', import.meta.url))
const children: ChildProcess[] = []

afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL')
})

function listeningLine(args: string[]): Promise<string> {
  const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
  children.push(child)
  let stdout = ''
  let stderr = ''
  child.stderr!.on('data', (chunk) => (stderr += chunk))
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no listening line; stderr: ${stderr}`)), 10_000)
    child.on('exit', (code) => reject(new Error(`exited with ${code}: ${stderr}`)))
    child.stdout!.on('data', (chunk) => {
      stdout += chunk
      const line = /^mockyard listening on (\S+)$/m.exec(stdout)
      if (line) {
        clearTimeout(timer)
        resolve(line[1]!)
      }
    })
  })
}

const hasIpv6Loopback = () => Object.values(networkInterfaces()).some((list) => list?.some((a) => a.family === 'IPv6' && a.address === '::1'))

describe('the CLI listening line', () => {
  it.runIf(hasIpv6Loopback())('--host ::1 prints http://[::1]:PORT, and that URL answers', async () => {
    const url = await listeningLine(['--routes', `${EXAMPLES}routes.json`, '--host', '::1', '--port', '0', '--latency', '0', '--no-watch', '--log', 'silent'])
    expect(url).toMatch(/^http:\/\/\[::1\]:\d+$/)
    expect((await fetch(`${url}/v1/users`)).status).toBe(200)
  })

  it('--host 127.0.0.1 prints http://127.0.0.1:PORT', async () => {
    const url = await listeningLine(['--routes', `${EXAMPLES}routes.json`, '--host', '127.0.0.1', '--port', '0', '--latency', '0', '--no-watch', '--log', 'silent'])
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect((await fetch(`${url}/v1/users`)).status).toBe(200)
  })
})
