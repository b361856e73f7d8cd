/** docs/behaviour.md, "Requests on the wire": the CLI's listening line names a URL a program can use (the built CLI). */
import { networkInterfaces } from 'node:os'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { killClis, startCli } from './support.js'

const EXAMPLES = fileURLToPath(new URL('../fixtures/examples/', import.meta.url))

afterEach(killClis)

const listeningLine = async (args: string[]) => (await startCli(args)).printed

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
