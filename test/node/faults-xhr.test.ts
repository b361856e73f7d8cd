/**
 * docs/behaviour.md, "Faults", for `XMLHttpRequest` in process (happy-dom's, set as the global
 * before `setupMockServer` starts, as a DOM test environment has it):
 * `reset` and `close` fire `error`; a hang is settled with `error` at the reset after each test
 * (the interceptor fires neither `abort` nor `timeout` for a request it holds); a cut body fires
 * `error`.
 */
import { Window } from 'happy-dom'
import { afterAll, describe, expect, it } from 'vitest'
import { setupMockServer } from 'mockyard/vitest'
import { removeTempDirs, writeMocks } from '../support/routes.js'

const page = new Window({ url: 'http://app.test/' })
Object.assign(globalThis, { XMLHttpRequest: page.XMLHttpRequest, XMLHttpRequestUpload: page.XMLHttpRequestUpload, ProgressEvent: page.ProgressEvent, Document: page.Document })
afterAll(async () => {
  removeTempDirs()
  await page.happyDOM.close()
})

const mocks = setupMockServer({
  routes: writeMocks(
    { 'v1/flaky': { fault: 'reset' }, 'v1/closed': { fault: 'close' }, 'v1/stuck': { fault: 'hang' }, 'v1/cut': { file: 'r.json', fault: 'truncate' }, 'v1/ok': { file: 'r.json' } },
    { 'r.json': JSON.stringify({ rows: Array.from({ length: 30 }, (_, i) => i) }) },
  ).routes,
})

/** The events an XHR fires until it ends (`load`, `error`, `timeout` or `abort`), with its status then. */
function xhr(path: string): Promise<{ event: string; status: number }> {
  return new Promise((resolve) => {
    const request = new XMLHttpRequest()
    request.open('GET', `http://api.test${path}`)
    for (const event of ['load', 'error', 'timeout', 'abort']) request.addEventListener(event, () => resolve({ event, status: request.status }))
    request.send()
  })
}

describe('XMLHttpRequest', () => {
  it('answers as usual (the interception is on)', async () => {
    expect(await xhr('/v1/ok')).toEqual({ event: 'load', status: 200 })
  })

  it('reset and close fire error', async () => {
    expect((await xhr('/v1/flaky')).event).toBe('error')
    expect((await xhr('/v1/closed')).event).toBe('error')
    expect(mocks.requests().map((r) => r.fault)).toEqual(['reset', 'close'])
  })

  it('a hang is settled with error at the reset', async () => {
    const ended = xhr('/v1/stuck')
    await mocks.waitForRequest((r) => r.fault === 'hang')
    mocks.reset()
    expect((await ended).event).toBe('error')
  })

  it('a cut body fires error', async () => {
    expect((await xhr('/v1/cut')).event).toBe('error')
  })
})
