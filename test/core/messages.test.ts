/**
 * Messages go through one formatter (docs/behaviour.md, "Errors"): one `[mockyard]` prefix, the
 * form "what failed: why. What to do.", never a prefix quoted inside another message.
 */
import { MockServer, startMockServer, type RunningServer } from 'mockyard/node'
import { createAdminClient } from 'mockyard/playwright'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { EXAMPLES_DATA, EXAMPLES_ROUTES } from '../contract/cases.js'

const quiet = () => ({ log() {}, debug() {}, info() {}, warn() {}, error() {} })
let server: RunningServer

beforeAll(async () => {
  server = await startMockServer({ routes: EXAMPLES_ROUTES, data: EXAMPLES_DATA })
})
afterAll(() => server.stop())

const messageOf = async (path: string, init?: RequestInit) => {
  const res = await fetch(server.url + path, init)
  return [res.status, ((await res.json()) as { message: string }).message]
}

describe('admin and dashboard refusals', () => {
  it('say what was refused, why and what to send', async () => {
    expect(await messageOf('/__mockyard/reset')).toEqual([405, '[mockyard] GET /__mockyard/reset refused: it answers POST only. Send POST instead.'])
    expect(await messageOf('/__mockyard/routes', { method: 'DELETE' })).toEqual([405, '[mockyard] DELETE /__mockyard/routes refused: it answers GET, PUT only. Send GET or PUT instead.'])
    expect(await messageOf('/__mockyard/dashboard/state', { method: 'POST' })).toEqual([405, '[mockyard] POST /__mockyard/dashboard/state refused: it answers GET and HEAD only. Send GET instead.'])
    expect(await messageOf('/__mockyard/nothing')).toEqual([404, '[mockyard] no admin endpoint /__mockyard/nothing. There are /__mockyard/reset, /__mockyard/requests, /__mockyard/routes and /__mockyard/coverage, and the dashboard at /__mockyard/.'])
  })
})

describe('the admin client', () => {
  it('quotes the listener’s message without a second prefix', async () => {
    const admin = createAdminClient(server.url, { session: 'messages' })
    const error = await admin.useRoutes({ 'v1/x': { latency: 'slow' } } as never).then(
      () => undefined,
      (e: Error) => e,
    )
    expect(error?.message).toMatch(/^\[mockyard\] PUT http:\/\/\S+\/__mockyard\/routes answered 400: the /)
    expect(error!.message.match(/\[mockyard\]/g)).toHaveLength(1)
  })
})

describe('MockServer', () => {
  it('started twice says what failed and what to do', async () => {
    const mock = new MockServer({ routes: EXAMPLES_ROUTES, data: EXAMPLES_DATA, latency: 0, watch: false, logProvider: quiet })
    await mock.start({ port: 0, host: '127.0.0.1' })
    try {
      await expect(mock.start({ port: 0 })).rejects.toThrow(
        '[mockyard] start() failed: this MockServer is already started. Call stop() first, or create another MockServer.',
      )
    } finally {
      await mock.stop()
    }
  })
})
