/**
 * docs/behaviour.md, "WebSocket": in process, a WebSocket opened where no route has steps follows
 * `onUnhandledRequest` like a request: 'error' fails it (error event, close 1006) with the
 * explanation kept for the test; 'bypass' lets it reach the real server.
 */
import type { AddressInfo } from 'node:net'
import { afterAll, describe, expect, it } from 'vitest'
import { WebSocketServer } from 'ws'
import { createInstance } from '../../src/config/instance.js'
import { interceptInstance } from '../../src/node/intercept-instance.js'
import { removeTempDirs, writeMocks } from '../support/routes.js'

afterAll(removeTempDirs)

const mocks = writeMocks({ 'v1/chat': { websocket: [{ send: 'hi' }] }, 'v1/users': { file: 'users.json' } }, { 'users.json': '[]' })

async function intercepted(onUnhandledRequest: 'error' | 'bypass') {
  const instance = await createInstance({ routes: mocks.routes, data: mocks.data, onUnhandledRequest }, { latency: 0, watch: false, logLevel: 'error' })
  return { instance, interception: interceptInstance(instance) }
}

describe('a WebSocket no route answers, in process', () => {
  it("fails under 'error', recorded and explained", async () => {
    const { instance, interception } = await intercepted('error')
    try {
      const socket = new WebSocket('ws://api.test/v1/users')
      const errored = new Promise((resolve) => socket.addEventListener('error', resolve))
      const closed = new Promise<CloseEvent>((resolve) => socket.addEventListener('close', resolve))
      await errored
      expect((await closed).code).toBe(1006)
      const [explanation] = interception.takeUnmatched()
      expect(explanation).toContain('route v1/users has no "websocket" steps')
      expect(instance.log.list()).toMatchObject([{ kind: 'websocket', status: 0, matched: false, url: 'ws://api.test/v1/users' }])
    } finally {
      await interception.dispose()
      await instance.close()
    }
  })

  it("reaches the real server under 'bypass'", async () => {
    const real = new WebSocketServer({ host: '127.0.0.1', port: 0 })
    real.on('connection', (socket) => socket.on('message', (data) => socket.send(`real: ${String(data)}`)))
    await new Promise((resolve) => real.once('listening', resolve))
    const { instance, interception } = await intercepted('bypass')
    try {
      const socket = new WebSocket(`ws://127.0.0.1:${(real.address() as AddressInfo).port}/elsewhere`)
      await new Promise((resolve) => socket.addEventListener('open', resolve))
      const reply = new Promise<MessageEvent>((resolve) => socket.addEventListener('message', resolve))
      socket.send('hello')
      expect(String((await reply).data)).toBe('real: hello')
      socket.close()
    } finally {
      await interception.dispose()
      await instance.close()
      await new Promise((resolve) => real.close(resolve))
    }
  })
})
