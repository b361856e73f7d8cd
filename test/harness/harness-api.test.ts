import { http, HttpResponse } from 'msw'
import { describe, expect, it, vi } from 'vitest'
import { memoryFiles } from '../../src/core/memory-files.js'
import type { RoutesConfig } from '../../src/core/types.js'
import { createHarness, loggedRequestOf } from '../../src/harness/harness-api.js'
import { createPipeline, pipelineRequestFromFetch } from '../../src/harness/pipeline.js'
import { applyUnhandled, isUnhandledStrategy } from '../../src/harness/unhandled.js'

function pipelineOver(routes: RoutesConfig) {
  return createPipeline({ sources: [{ file: 'routes.json', routes, files: memoryFiles({ 'users.json': '[1]' }) }], engine: { latency: 0 } })
}

async function send(pipeline: ReturnType<typeof pipelineOver>, url: string) {
  const outcome = await pipeline.respond(pipelineRequestFromFetch(new Request(url)))
  if (outcome.kind === 'unmatched') outcome.settle({ status: 0 })
  return outcome
}

describe('createHarness: the one in-process harness API', () => {
  it('reads the log, waits for a request, adds handlers and resets, over a pipeline', async () => {
    const pipeline = pipelineOver({ 'v1/users': { file: 'users.json' } })
    const harness = createHarness(() => pipeline)
    await send(pipeline, 'http://api.test/v1/users')
    expect(harness.requests({ path: '/v1/users' })).toMatchObject([{ method: 'GET', route: 'v1/users', file: 'users.json', status: 200 }])

    const later = harness.waitForRequest((record) => record.url.endsWith('/v1/later'))
    await send(pipeline, 'http://api.test/v1/later')
    expect(await later).toMatchObject({ matched: false, status: 0 })

    harness.use(http.get('*/v1/users', () => HttpResponse.json({ handler: true })))
    const handled = await send(pipeline, 'http://api.test/v1/users')
    expect(handled.kind).toBe('handler')

    harness.reset()
    expect(harness.requests()).toEqual([])
    expect((await send(pipeline, 'http://api.test/v1/users')).kind).toBe('route')
  })

  it('an async waitForRequest predicate is refused, not taken as true for the first request', async () => {
    const pipeline = pipelineOver({ 'v1/users': { file: 'users.json' } })
    const harness = createHarness(() => pipeline)
    await send(pipeline, 'http://api.test/v1/users')
    const message = '[mockyard] the waitForRequest predicate returned a promise (an async function?): it must return true or false at once. Read what it needs from the record it is given, without await.'
    await expect(harness.waitForRequest(async (record) => record.url.endsWith('/v1/other'))).rejects.toThrow(message)
    // Also for a request that comes later; the request itself is answered and recorded.
    const fresh = pipelineOver({ 'v1/users': { file: 'users.json' } })
    const waiting = createHarness(() => fresh).waitForRequest(async () => true)
    await send(fresh, 'http://api.test/v1/users')
    await expect(waiting).rejects.toThrow(message)
    expect(fresh.log.list()).toHaveLength(1)
  })

  it('reads its target at each call: a handle made before what it runs on', () => {
    let pipeline: ReturnType<typeof pipelineOver> | undefined
    const harness = createHarness(() => {
      if (!pipeline) throw new Error('not started')
      return pipeline
    })
    expect(() => harness.requests()).toThrow('not started')
    pipeline = pipelineOver({})
    expect(harness.requests()).toEqual([])
    expect(() => harness.useRoutes({})).toThrow('useRoutes() is not available on this surface.')
  })

  it('maps a record to what the admin endpoint sends: null where the record has nothing', async () => {
    const pipeline = pipelineOver({})
    await send(pipeline, 'http://api.test/v1/none')
    const [record] = pipeline.log.list()
    expect(loggedRequestOf(record!)).toEqual({
      method: 'GET',
      url: 'http://api.test/v1/none',
      headers: {},
      body: null,
      route: null,
      entry: null,
      file: null,
      fault: null,
      status: 0,
      session: '',
      time: record!.time,
      durationMs: record!.durationMs,
    })
  })
})

describe('applyUnhandled: one policy, each surface supplying fall through and fail', () => {
  const actions = () => ({ fallThrough: vi.fn(() => 'through'), fail: vi.fn((text: string) => `failed: ${text}`), warn: vi.fn() })

  it("'error' fails with the explanation; 'warn' warns and falls through; 'bypass' falls through without asking why", () => {
    const explanation = vi.fn(() => 'why')
    const error = actions()
    expect(applyUnhandled('error', explanation, error)).toBe('failed: why')
    expect(error.fallThrough).not.toHaveBeenCalled()

    const warn = actions()
    expect(applyUnhandled('warn', explanation, warn)).toBe('through')
    expect(warn.warn).toHaveBeenCalledWith('why')

    const bypass = actions()
    explanation.mockClear()
    expect(applyUnhandled('bypass', explanation, bypass)).toBe('through')
    expect(explanation).not.toHaveBeenCalled()
    expect(bypass.warn).not.toHaveBeenCalled()
  })

  it('knows its three names', () => {
    expect(['error', 'warn', 'bypass'].every(isUnhandledStrategy)).toBe(true)
    expect(isUnhandledStrategy('maybe')).toBe(false)
  })
})
