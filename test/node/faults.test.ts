/**
 * docs/behaviour.md, "Faults", in process under `setupMockServer`: each client fails the way it
 * fails against a real server (the listener's test shows the same errors over a socket): fetch,
 * `http`, axios with a retry loop; a hang ends with the client's signal or timeout and is settled
 * at the reset after each test; a cut body fails when read.
 */
import axios, { type AxiosError } from 'axios'
import { afterAll, describe, expect, it } from 'vitest'
import { setupMockServer } from 'mockyard/vitest'
import { httpGet, removeTempDirs, writeMocks } from '../support/routes.js'

afterAll(removeTempDirs)

const REPORT = JSON.stringify({ rows: Array.from({ length: 20 }, (_, i) => ({ id: i })) })
const mocks = setupMockServer({
  routes: writeMocks(
    {
      'v1/flaky': { fault: 'reset' },
      'v1/closed': { fault: 'close' },
      'v1/stuck': { fault: 'hang' },
      'v1/cut': { file: 'report.json', fault: 'truncate' },
      'v1/cut-stream': { file: 'answer.ndjson', stream: { by: 'line', delay: 5 }, fault: 'truncate' },
      'v1/cut-feed': { events: [{ data: 'one' }, { data: 'two' }, { data: 'three' }, { data: 'four' }], fault: 'truncate' },
      'v1/retry': { get: [{ response: [{ fault: 'reset' }, { status: 503 }, { file: 'ok.json' }] }] },
    },
    { 'report.json': REPORT, 'ok.json': '{"ok":true}', 'answer.ndjson': '{"t":1}\n{"t":2}\n{"t":3}\n{"t":4}\n' },
  ).routes,
})
const API = 'http://api.test'

type NetworkError = TypeError & { cause?: { code?: string; message?: string } }
const rejection = <T>(promise: Promise<T>) =>
  promise.then(
    () => undefined,
    (error: NetworkError) => error,
  )

describe('fetch', () => {
  it('reset: a TypeError whose cause has the code ECONNRESET, recorded with the fault', async () => {
    const error = await rejection(fetch(`${API}/v1/flaky`))
    expect(error).toBeInstanceOf(TypeError)
    expect(error!.cause?.code).toBe('ECONNRESET')
    expect(mocks.requests()).toMatchObject([{ route: 'v1/flaky', fault: 'reset', status: 0 }])
  })

  it('close: a TypeError, as undici gives for a connection closed without a byte', async () => {
    const error = await rejection(fetch(`${API}/v1/closed`))
    expect(error).toBeInstanceOf(TypeError)
    expect(error!.cause?.message).toBe('other side closed')
  })

  it('truncate: the status and full Content-Length arrive; reading the body fails after half', async () => {
    const res = await fetch(`${API}/v1/cut`)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-length')).toBe(String(REPORT.length))
    const reader = res.body!.getReader()
    const first = await reader.read()
    expect(new TextDecoder().decode(first.value)).toBe(REPORT.slice(0, Math.floor(REPORT.length / 2)))
    await expect(reader.read()).rejects.toThrow(TypeError)
    expect((await fetch(`${API}/v1/cut`).then((again) => rejection(again.text())))?.message).toBe('terminated')
  })

  it('truncate on a stream or an event feed: the first half of its pieces, then reading fails', async () => {
    const readAll = async (path: string) => {
      const reader = (await fetch(`${API}${path}`)).body!.getReader()
      let text = ''
      for (;;) {
        const read = await reader.read().catch((error: Error) => error)
        if (read instanceof Error) return { text, error: read.message }
        if (read.done) return { text, error: undefined }
        text += new TextDecoder().decode(read.value)
      }
    }
    expect(await readAll('/v1/cut-stream')).toEqual({ text: '{"t":1}\n{"t":2}\n', error: 'terminated' })
    expect(await readAll('/v1/cut-feed')).toEqual({ text: 'data: one\n\ndata: two\n\n', error: 'terminated' })
  })

  it('hang: pending until the request signal aborts, then the client’s own error', async () => {
    const error = await rejection(fetch(`${API}/v1/stuck`, { signal: AbortSignal.timeout(50) }))
    expect(error?.name).toBe('TimeoutError')
  })

  it('hang: recorded at once, and settled as a network error at the reset', async () => {
    const settled = rejection(fetch(`${API}/v1/stuck`))
    expect(await mocks.waitForRequest((record) => record.route === 'v1/stuck')).toMatchObject({ fault: 'hang', status: 0 })
    mocks.reset()
    const error = await settled
    expect(error).toBeInstanceOf(TypeError)
    expect(error!.cause?.code).toBe('ECONNRESET')
  })

  let leftHanging: Promise<NetworkError | undefined> | undefined
  it('hang: a request left pending by one test ...', async () => {
    leftHanging = rejection(fetch(`${API}/v1/stuck`))
    await mocks.waitForRequest((record) => record.fault === 'hang')
  })
  it('... is settled by the reset after that test', async () => {
    expect((await leftHanging)?.cause?.code).toBe('ECONNRESET')
  })

  it('the retry sequence: a network error, then 503, then the answer', async () => {
    const attempts: string[] = []
    let res: Response | undefined
    for (let i = 0; i < 5 && !res?.ok; i++) {
      res = await fetch(`${API}/v1/retry`).catch((error: NetworkError) => {
        attempts.push(error.cause?.code ?? error.message)
        return undefined
      })
      if (res) attempts.push(String(res.status))
    }
    expect(attempts).toEqual(['ECONNRESET', '503', '200'])
    expect(await res!.json()).toEqual({ ok: true })
  })
})

describe('http and axios', () => {
  it('reset: http.get emits an error with the code ECONNRESET', async () => {
    const { error } = await httpGet(`${API}/v1/flaky`)
    expect(error?.code).toBe('ECONNRESET')
    expect(error?.message).toBe('read ECONNRESET')
  })

  it('close: socket hang up (ECONNRESET)', async () => {
    const { error } = await httpGet(`${API}/v1/closed`)
    expect(error?.message).toBe('socket hang up')
    expect(error?.code).toBe('ECONNRESET')
  })

  it('truncate: the response arrives, its body ends in an error', async () => {
    const got = await httpGet(`${API}/v1/cut`)
    expect(got.status).toBe(200)
    expect(got.error?.code).toBe('ECONNRESET')
  })

  it('axios: reset gives code ECONNRESET; a retry loop on it and on 503 gets the answer', async () => {
    const error = await axios.get(`${API}/v1/flaky`).catch((error: AxiosError) => error)
    expect((error as AxiosError).code).toBe('ECONNRESET')

    const attempts: string[] = []
    const get = async (): Promise<unknown> => {
      for (;;) {
        try {
          const res = await axios.get(`${API}/v1/retry`)
          attempts.push(String(res.status))
          return res.data
        } catch (error) {
          const failure = error as AxiosError
          attempts.push(failure.code === 'ECONNRESET' ? 'ECONNRESET' : String(failure.response?.status))
          if (attempts.length > 5) throw error
        }
      }
    }
    expect(await get()).toEqual({ ok: true })
    expect(attempts).toEqual(['ECONNRESET', '503', '200'])
  })

  it('axios: a hang ends with axios’ own timeout', async () => {
    const error = (await axios.get(`${API}/v1/stuck`, { timeout: 50 }).catch((error: AxiosError) => error)) as AxiosError
    expect(error.code).toBe('ECONNABORTED')
  })
})

describe('nothing leaks', () => {
  it('after every fault and a reset, the process holds no more handles than before', async () => {
    const handles = () => process.getActiveResourcesInfo().filter((name) => name !== 'TTYWrap').length
    // The http interceptor loads with the first http request: load it before counting.
    await httpGet(`${API}/v1/retry`)
    const before = handles()
    for (let round = 0; round < 3; round++) {
      await rejection(fetch(`${API}/v1/flaky`))
      await rejection(fetch(`${API}/v1/closed`))
      await rejection(fetch(`${API}/v1/cut`).then((res) => res.text()))
      await httpGet(`${API}/v1/flaky`)
      await httpGet(`${API}/v1/cut`)
      const hung = [rejection(fetch(`${API}/v1/stuck`)), httpGet(`${API}/v1/stuck`)]
      await mocks.waitForRequest(() => mocks.requests({ route: 'v1/stuck' }).length === 2)
      mocks.reset()
      await Promise.all(hung)
    }
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect(handles()).toBeLessThanOrEqual(before)
  })
})
