/**
 * One behaviour contract, run against every surface (in process, HTTP listener, middleware in
 * express and connect, MockServer, Vitest helper, browser worker): every
 * example of docs/behaviour.md, so the surfaces provably agree.
 */
import { fileURLToPath } from 'node:url'

export const EXAMPLES_DIR = fileURLToPath(new URL('../fixtures/examples/', import.meta.url))
export const EXAMPLES_ROUTES = EXAMPLES_DIR + 'routes.json'
export const EXAMPLES_DATA = EXAMPLES_DIR + 'data'

export interface Surface {
  /** Sends a request to a path (`/v1/users?x=1`) of the surface. */
  fetch(path: string, init?: RequestInit): Promise<Response>
  reset(): void | Promise<void>
  close(): void | Promise<void>
  /**
   * In a browser, `redirect: 'manual'` gives an opaque redirect (no status, no headers): the
   * redirect case then follows the redirect to a same-origin target instead.
   */
  opaqueRedirects?: boolean
  /**
   * In a browser, fetch drops `Origin` and `Access-Control-Request-*` headers, and a service
   * worker never sees the `Origin` the browser adds: the CORS cases check what a page gets.
   */
  forbiddenHeadersDropped?: boolean
  /**
   * Overrides routes until the next reset, the way the surface's users do (`useRoutes`, or
   * `PUT /__mockyard/routes` over the listener); surfaces without it skip the override cases.
   */
  useRoutes?(routes: Record<string, unknown>): void | Promise<void>
}

/** The test framework the contract runs in: Vitest, or Playwright Test through a small adapter. */
export interface Framework {
  describe(name: string, body: () => void): void
  it(name: string, body: () => Promise<void>): void
  beforeAll(body: () => Promise<void>): void
  afterAll(body: () => Promise<void>): void
  beforeEach(body: () => Promise<void>): void
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  expect: (value: unknown) => any
}

const json = (res: Response) => res.json() as Promise<{ file?: string }>

/**
 * Registers the contract's tests for a surface created by `create()` (options: the examples);
 * `overrides`: the surface offers `useRoutes`, and the override cases run on it.
 */
export function runContract(name: string, create: () => Promise<Surface>, framework: Framework, features: { overrides?: boolean } = {}): void {
  const { describe, it, beforeAll, afterAll, beforeEach, expect } = framework
  const each = <T extends unknown[]>(rows: T[]) => (title: string, body: (...args: T) => Promise<void>) => {
    for (const row of rows) {
      const values = [...row]
      it(title.replace(/%[sj]/g, () => JSON.stringify(values.shift() ?? '').replace(/^"|"$/g, '')), () => body(...row))
    }
  }
  describe(`contract: ${name}`, () => {
    let surface: Surface
    beforeAll(async () => {
      surface = await create()
    })
    afterAll(async () => {
      await surface?.close()
    })
    beforeEach(async () => {
      await surface.reset()
    })
    const get = (path: string, init?: RequestInit) => surface.fetch(path, init)
    const fileOf = async (path: string, init?: RequestInit) => (await json(await get(path, init))).file

    describe('one file for every method', () => {
      each([['GET'], ['PUT'], ['POST'], ['DELETE'], ['PATCH']])('%s /v1/users -> 200 users.json', async (method) => {
        const res = await get('/v1/users', { method })
        expect(res.status).toBe(200)
        expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8')
        expect(await json(res)).toEqual({ file: 'users.json' })
      })
      it('serves /v1/users.json, /v1/users/ and /v1/users.json/ as the same route, and ignores case', async () => {
        expect(await fileOf('/v1/users.json')).toBe('users.json')
        expect(await fileOf('/v1/users/')).toBe('users.json')
        expect(await fileOf('/v1/users.json/')).toBe('users.json')
        expect(await fileOf('/V1/Users')).toBe('users.json')
      })
      it('HEAD -> 200, JSON content type and the length GET sends, no body', async () => {
        const res = await get('/v1/users', { method: 'HEAD' })
        expect(res.status).toBe(200)
        expect(res.headers.get('content-type')).toMatch(/^application\/json/)
        expect(res.headers.get('content-length')).toBe(String(new TextEncoder().encode('{"file":"users.json"}\n').byteLength))
        expect(await res.text()).toBe('')
      })
    })

    describe('status, latency, method keys', () => {
      it('GET -> 201 orders.json after about 400 ms', async () => {
        const started = performance.now()
        const res = await get('/v1/orders')
        const elapsed = performance.now() - started
        expect(res.status).toBe(201)
        expect(await json(res)).toEqual({ file: 'orders.json' })
        expect(elapsed).toBeGreaterThanOrEqual(380)
        expect(elapsed).toBeLessThan(3000)
      })
      it('POST -> 201 order-created.json', async () => {
        const res = await get('/v1/orders', { method: 'POST' })
        expect(res.status).toBe(201)
        expect(await json(res)).toEqual({ file: 'order-created.json' })
      })
      it('DELETE -> 204, empty body, x-deleted: yes', async () => {
        const res = await get('/v1/orders', { method: 'DELETE' })
        expect(res.status).toBe(204)
        expect(res.headers.get('x-deleted')).toBe('yes')
        expect(await res.text()).toBe('')
      })
      it('X-HTTP-Method-Override on a POST counts as that method', async () => {
        const res = await get('/v1/orders', { method: 'POST', headers: { 'X-HTTP-Method-Override': 'DELETE' } })
        expect(res.status).toBe(204)
      })
    })

    describe('choosing by query parameters', () => {
      each([
        ['?status=open', 'claims-open.json'],
        ['?status=open&owner=me', 'claims-open-mine.json'],
        ['?status=closed', 'claims-all.json'],
        ['?tag=alpha&tag=beta', 'claims-multi.json'],
        ['?tag=alpha', 'claims-multi.json'],
        ['?tag=gamma', 'claims-all.json'],
        ['?year=2024', 'claims-year.json'],
        ['?year=1999', 'claims-all.json'],
        ['?page=2', 'claims-page.json'],
        ['', 'claims-all.json'],
      ])('GET /v1/claims%s -> %s', async (query, file) => {
        expect(await fileOf(`/v1/claims${query}`)).toBe(file)
      })
    })

    describe('choosing by JSON body, form fields and uploads', () => {
      const post = (body: BodyInit, headers?: Record<string, string>, query = '') =>
        fileOf(`/v1/payments${query}`, { method: 'POST', body, headers })
      it('a dotted path in a JSON body', async () => {
        expect(await post(JSON.stringify({ method: { type: 'card' } }), { 'content-type': 'application/json' })).toBe('payment-card.json')
      })
      it('an array index in a JSON body', async () => {
        expect(await post(JSON.stringify({ lines: [{}, {}, { sku: 'X-3' }] }), { 'content-type': 'application/json' })).toBe('payment-third-line.json')
      })
      it('a multipart form with a text field and a file field', async () => {
        const form = new FormData()
        form.set('kind', 'wire')
        form.set('proof', new File([new Uint8Array([1, 2, 3])], 'receipt.pdf', { type: 'application/pdf' }))
        expect(await post(form)).toBe('payment-form.json')
      })
      it('the same fields urlencoded', async () => {
        expect(await post('kind=wire&proof=receipt.pdf', { 'content-type': 'application/x-www-form-urlencoded' })).toBe('payment-form.json')
      })
      it('a query string beside a JSON body', async () => {
        expect(await post(JSON.stringify({ method: { type: 'card' } }), { 'content-type': 'application/json' }, '?debug=1')).toBe('payment-card.json')
      })
      it('no matching body -> the default', async () => {
        expect(await post(JSON.stringify({ method: { type: 'cash' } }), { 'content-type': 'application/json' })).toBe('payment-default.json')
      })
      it('a malformed JSON body -> 400 JSON error', async () => {
        const res = await get('/v1/payments', { method: 'POST', body: '{"method":', headers: { 'content-type': 'application/json' } })
        expect(res.status).toBe(400)
        const body = (await res.json()) as { error: string; message: string }
        expect(body.error).toBe('Bad Request')
        expect(body.message).toMatch(/JSON body does not parse/)
      })
    })

    describe('choosing by headers', () => {
      each<[Record<string, string>, string]>([
        [{ 'x-role': 'admin' }, 'profile-admin.json'],
        [{}, 'profile.json'],
        [{ 'x-role': 'user' }, 'profile.json'],
      ])('headers %j -> %s', async (headers, file) => {
        expect(await fileOf('/v1/profile', { headers })).toBe(file)
      })
    })

    describe('sequences', () => {
      it('202, 202, 200, then 202 again; a reset starts over', async () => {
        const results: Array<[number, string | undefined, string | null]> = []
        for (let i = 0; i < 4; i++) {
          const res = await get('/v1/jobs/42')
          results.push([res.status, (await json(res)).file, res.headers.get('location')])
        }
        expect(results).toEqual([
          [202, 'job-running.json', '/v1/jobs/42'],
          [202, 'job-running.json', '/v1/jobs/42'],
          [200, 'job-done.json', null],
          [202, 'job-running.json', '/v1/jobs/42'],
        ])
        // The 5th request leaves the sequence before its 200: without the reset, the next would be it.
        expect((await get('/v1/jobs/42')).status).toBe(202)
        await surface.reset()
        expect((await get('/v1/jobs/42')).status).toBe(202)
      })
    })

    describe('redirects, other file types, context', () => {
      it('/v1/help -> 302 with Location', async () => {
        if (surface.opaqueRedirects) {
          const res = await get('/v1/help', { redirect: 'manual' })
          expect(res.type === 'opaqueredirect' || res.status === 302).toBe(true)
          return
        }
        const res = await get('/v1/help', { redirect: 'manual' })
        expect(res.status).toBe(302)
        expect(res.headers.get('location')).toBe('https://example.com/help')
      })
      it('/v1/report -> application/pdf, the bytes unchanged', async () => {
        const res = await get('/v1/report')
        expect(res.headers.get('content-type')).toBe('application/pdf')
        const bytes = new Uint8Array(await res.arrayBuffer())
        const { readFileSync } = await import('node:fs')
        expect(Buffer.from(bytes).equals(readFileSync(EXAMPLES_DATA + '/report.pdf'))).toBe(true)
      })
      it('/v1/feed -> application/xml', async () => {
        const res = await get('/v1/feed')
        expect(res.headers.get('content-type')).toBe('application/xml')
        expect(await res.text()).toContain('<feed>')
      })
      it('${context} is replaced by the request origin when pluginContext is unset', async () => {
        const res = await get('/v1/links')
        const body = (await res.json()) as { self: string }
        expect(body.self).toMatch(/^https?:\/\/[^/]+\/v1\/links$/)
        expect(body.self).not.toContain('${context}')
      })
    })

    if (features.overrides) overrideCases()

    /** docs/behaviour.md, "Overrides": an override replaces what it answers, never merges into it. */
    function overrideCases() {
      const use = async (routes: Record<string, unknown>) => {
        if (!surface.useRoutes) throw new Error(`${name} offers no useRoutes`)
        await surface.useRoutes(routes)
      }
      const answer = async (path: string, init?: RequestInit) => {
        const res = await get(path, init)
        return { status: res.status, body: await res.text() }
      }
      describe('overrides replace, never merge', () => {
        it('a route-level status replaces the conditional GET entries: every GET is an empty 500', async () => {
          await use({ 'v1/claims': { status: 500 } })
          expect(await answer('/v1/claims?status=open')).toEqual({ status: 500, body: '' })
          expect(await answer('/v1/claims')).toEqual({ status: 500, body: '' })
          expect(await answer('/v1/claims', { method: 'POST' })).toEqual({ status: 500, body: '' })
        })
        it('a route-level status replaces a method key of its own (POST) too', async () => {
          await use({ 'v1/orders': { status: 500 } })
          expect(await answer('/v1/orders', { method: 'POST' })).toEqual({ status: 500, body: '' })
          expect(await answer('/v1/orders', { method: 'DELETE' })).toEqual({ status: 500, body: '' })
        })
        it('a route-level status replaces a sequence: no 202s', async () => {
          await use({ 'v1/jobs/42': { status: 500 } })
          expect(await answer('/v1/jobs/42')).toEqual({ status: 500, body: '' })
          expect(await answer('/v1/jobs/42')).toEqual({ status: 500, body: '' })
        })
        it('a status over a route with a success file answers an empty body', async () => {
          await use({ 'v1/users': { status: 503 } })
          expect(await answer('/v1/users')).toEqual({ status: 503, body: '' })
        })
        it('{ get: { status: 500 } } replaces the GETs (any query) and leaves POST as it was', async () => {
          await use({ 'v1/claims': { get: { status: 500 } }, 'v1/orders': { get: { status: 500 } } })
          expect(await answer('/v1/claims?status=open')).toEqual({ status: 500, body: '' })
          expect(await answer('/v1/claims')).toEqual({ status: 500, body: '' })
          expect(await answer('/v1/claims', { method: 'POST' })).toEqual({ status: 200, body: '{"file":"claims-all.json"}\n' })
          expect(await answer('/v1/orders')).toEqual({ status: 500, body: '' })
          expect(await answer('/v1/orders', { method: 'POST' })).toEqual({ status: 201, body: '{"file":"order-created.json"}\n' })
        })
        it('a replaced method starts its own sequence', async () => {
          await use({ 'v1/jobs/42': { get: [{ response: [{ status: 201 }, { status: 500 }] }] } })
          expect((await answer('/v1/jobs/42')).status).toBe(201)
          expect(await answer('/v1/jobs/42')).toEqual({ status: 500, body: '' })
        })
        it('response headers alone are laid over the route\'s own answers, entries and sequences included', async () => {
          await use({ 'v1/claims': { responseHeaders: { 'x-layer': 'on' } }, 'v1/jobs/42': { responseHeader: { 'x-layer': 'jobs' } } })
          const open = await get('/v1/claims?status=open')
          expect([open.status, open.headers.get('x-layer'), await open.text()]).toEqual([200, 'on', '{"file":"claims-open.json"}\n'])
          const job = await get('/v1/jobs/42')
          expect([job.status, job.headers.get('x-layer'), job.headers.get('location')]).toEqual([202, 'jobs', '/v1/jobs/42'])
        })
        it('latency alone is laid over the route\'s own answers', async () => {
          await use({ 'v1/claims': { latency: 300 } })
          const started = performance.now()
          const res = await get('/v1/claims?status=open')
          const elapsed = performance.now() - started
          expect(await res.text()).toBe('{"file":"claims-open.json"}\n')
          expect(elapsed).toBeGreaterThanOrEqual(280)
        })
        it('stream alone is laid over the route\'s own answers: its file is sent piece by piece', async () => {
          await use({ 'v1/feed': { stream: { by: 'line', delay: 300 } } })
          const started = performance.now()
          const res = await get('/v1/feed')
          const text = await res.text()
          const elapsed = performance.now() - started
          expect([res.status, text]).toEqual([200, '<?xml version="1.0"?>\n<feed><title>mockyard</title></feed>\n'])
          // Two lines: the second comes 300 ms after the first.
          expect(elapsed).toBeGreaterThanOrEqual(280)
        })
        it('overrides layer: a later one over an earlier one', async () => {
          await use({ 'v1/claims': { get: { status: 500 } } })
          await use({ 'v1/claims': { responseHeaders: { 'x-layer': 'later' } } })
          const res = await get('/v1/claims?status=open')
          expect([res.status, res.headers.get('x-layer'), await res.text()]).toEqual([500, 'later', ''])
          expect(await answer('/v1/claims', { method: 'POST' })).toEqual({ status: 200, body: '{"file":"claims-all.json"}\n' })
        })
        it('a route-level fault replaces every method: fetch rejects with a TypeError (docs/behaviour.md, "Faults")', async () => {
          await use({ 'v1/orders': { fault: 'reset' } })
          for (const method of ['GET', 'POST']) {
            const error = await get('/v1/orders', { method }).then(
              () => undefined,
              (error: unknown) => error,
            )
            expect(error).toBeInstanceOf(TypeError)
          }
        })
        it('faults in a sequence: a network error, then 503, then the answer', async () => {
          await use({ 'v1/users': { get: [{ response: [{ fault: 'reset' }, { status: 503 }, { file: 'users.json' }] }] } })
          const attempt = () =>
            get('/v1/users').then(
              (res) => res.status,
              (error: unknown) => (error instanceof TypeError ? 'TypeError' : String(error)),
            )
          expect([await attempt(), await attempt(), await attempt()]).toEqual(['TypeError', 503, 200])
        })
        it('a reset brings the loaded routes back', async () => {
          await use({ 'v1/claims': { status: 500 } })
          await surface.reset()
          expect(await answer('/v1/claims?status=open')).toEqual({ status: 200, body: '{"file":"claims-open.json"}\n' })
        })
      })
    }

    describe('CORS', () => {
      it('echoes the Origin with credentials', async () => {
        const res = await get('/v1/users', { headers: { origin: 'http://app.test' } })
        if (surface.forbiddenHeadersDropped) {
          expect(res.headers.get('access-control-allow-origin')).toBe('*')
          expect(res.headers.get('access-control-allow-credentials')).toBeNull()
          return
        }
        expect(res.headers.get('access-control-allow-origin')).toBe('http://app.test')
        expect(res.headers.get('access-control-allow-credentials')).toBe('true')
        expect(res.headers.get('vary')).toContain('Origin')
      })
      it('* without an Origin', async () => {
        const res = await get('/v1/users')
        expect(res.headers.get('access-control-allow-origin')).toBe('*')
      })
      it('exposes the headers the response sets', async () => {
        const res = await get('/v1/jobs/42', { headers: { origin: 'http://app.test' } })
        expect(res.headers.get('access-control-expose-headers')).toContain('location')
      })
      it('answers a preflight on a configured route', async () => {
        const res = await get('/v1/users', { method: 'OPTIONS', headers: { origin: 'http://app.test', 'access-control-request-method': 'POST', 'access-control-request-headers': 'x-mockyard-session,content-type' } })
        expect(res.status).toBe(204)
        expect(res.headers.get('access-control-allow-methods')).toBe('GET,HEAD,PUT,PATCH,POST,DELETE')
        expect(res.headers.get('access-control-allow-headers')).toBe(surface.forbiddenHeadersDropped ? null : 'x-mockyard-session,content-type')
        expect(res.headers.get('access-control-max-age')).toBe('600')
      })
    })
  })
}
