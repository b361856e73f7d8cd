/**
 * docs/behaviour.md, "WebSocket": the CLI's listener accepts WebSocket upgrades on its own port,
 * and SIGTERM closes the open sockets instead of waiting for them.
 */
import { afterEach, afterAll, expect, it } from 'vitest'
import { killClis, startCli } from './support.js'
import { removeTempDirs, writeMocks } from '../support/routes.js'

afterEach(killClis)
afterAll(removeTempDirs)

it('serves a route\'s websocket steps, and SIGTERM closes the socket', async () => {
  const mocks = writeMocks({ 'v1/chat': { websocket: [{ send: { type: 'welcome' } }, { on: { type: 'ping' }, send: { type: 'pong' } }] } })
  const cli = await startCli(['--routes', mocks.routes, '--port', '0'])
  const socket = new WebSocket(`${cli.url.replace(/^http/, 'ws')}/v1/chat`)
  const received: string[] = []
  let wake = () => {}
  socket.addEventListener('message', (event) => {
    received.push(String(event.data))
    wake()
  })
  const closed = new Promise<CloseEvent>((resolve) => socket.addEventListener('close', resolve))
  const next = async (count: number) => {
    while (received.length < count) await new Promise<void>((resolve) => (wake = resolve))
  }
  await next(1)
  socket.send('{"type":"ping"}')
  await next(2)
  expect(received).toEqual(['{"type":"welcome"}', '{"type":"pong"}'])
  const exited = new Promise<number | null>((resolve) => cli.child.on('exit', resolve))
  cli.child.kill('SIGTERM')
  expect((await closed).code).toBe(1001)
  expect(await exited).toBe(0)
})
