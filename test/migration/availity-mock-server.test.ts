/**
 * The HTTP test suite of @availity/mock-server 11 (its tests/, response/tests/, routes/tests/ and
 * middleware/tests/ specs, 38 tests over HTTP, plus its one `toBeDefined`), ported test for test
 * onto `MockServer`, with that package's own config file `tests/test-config.js` unchanged
 * (`{ latency: 0, user: null, cache: 0, limit, port, host, data, routes }`): once given by path,
 * as its suite does, and once as the object it exports (docs/behaviour.md, "Options").
 *
 * superagent becomes fetch (a status >= 400 is asserted instead of a rejection); the one test
 * that read express's router stack (`config().router.stack`) asks the routes over HTTP instead.
 */
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { MockServer, type MockyardOptions } from 'mockyard/node'

const PACKAGE = dirname(createRequire(import.meta.url).resolve('@availity/mock-server/package.json'))
const CONFIG_FILE = join(PACKAGE, 'tests', 'test-config.js')
const DATA = join(PACKAGE, 'tests', 'data')
const ROUTES = join(PACKAGE, 'tests', 'dummy.routes.config.json')
const configObject = ((await import(pathToFileURL(CONFIG_FILE).href)) as { default: MockyardOptions }).default
const getFile = (name: string) => join(DATA, name)

it('the config file is the old package one, unchanged', () => {
  expect(configObject).toMatchObject({ latency: 0, user: null, cache: 0, limit: '50mb', port: 0, host: '127.0.0.1' })
})

/** Sends a request; `body` is JSON unless it is FormData. */
async function request(url: string, init: { method?: string; headers?: Record<string, string>; body?: unknown } = {}) {
  const { body, ...rest } = init
  const isForm = body instanceof FormData
  const res = await fetch(url, {
    ...rest,
    headers: { ...(body !== undefined && !isForm ? { 'content-type': 'application/json' } : {}), ...rest.headers },
    body: body === undefined ? undefined : isForm ? body : JSON.stringify(body),
  })
  const text = await res.text()
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    json = undefined
  }
  return { status: res.status, body: json, header: Object.fromEntries(res.headers) }
}

/** A multipart body: file fields carry the file's name and bytes, as superagent's attach() sends them. */
function multipart(files: Record<string, string>, fields: Record<string, string> = {}): FormData {
  const form = new FormData()
  for (const [field, file] of Object.entries(files)) form.append(field, new Blob([readFileSync(getFile(file))], { type: 'application/json' }), file)
  for (const [field, value] of Object.entries(fields)) form.append(field, value)
  return form
}

const inputs: Array<[string, () => string | MockyardOptions]> = [
  ['the config file path', () => CONFIG_FILE],
  ['the config object', () => configObject],
]

describe.each(inputs)('@availity/mock-server suite on MockServer, config given as %s', (_label, input) => {
  describe('Ekko (tests/server.spec.js)', () => {
    it('should be defined: constructing one starts nothing', () => {
      expect(new MockServer(input()).config().server).toBeUndefined()
    })

    describe('lifecycle', () => {
      let ekko: MockServer | null = null

      afterEach(async () => {
        if (ekko) {
          await ekko.stop()
          ekko = null
        }
      })

      it('starts and listens on a port', async () => {
        ekko = new MockServer(input())
        await ekko.start()
        const { port } = ekko.config().server!.address() as { port: number }
        expect(port).toBeGreaterThan(0)
      })

      it('responds to configured routes after start', async () => {
        ekko = new MockServer(input())
        await ekko.start()
        const { port } = ekko.config().server!.address() as { port: number }
        const res = await request(`http://127.0.0.1:${port}/v1/route1`)
        expect(res.status).toBe(200)
        expect(res.body).toEqual({ a: 1 })
      })

      it('stops cleanly and refuses connections', async () => {
        ekko = new MockServer(input())
        await ekko.start()
        const { port } = ekko.config().server!.address() as { port: number }
        await ekko.stop()
        ekko = null
        await expect(fetch(`http://127.0.0.1:${port}/v1/route1`)).rejects.toThrow()
      })

      it('stop resolves even when server was never started', async () => {
        ekko = new MockServer()
        await expect(ekko.stop()).resolves.toBe(true)
        ekko = null
      })

      it('can start with options object instead of config path', async () => {
        ekko = new MockServer()
        await ekko.start({ latency: 0, port: 0, host: '127.0.0.1', data: DATA, routes: ROUTES })
        const { port } = ekko.config().server!.address() as { port: number }
        expect(port).toBeGreaterThan(0)
        const res = await request(`http://127.0.0.1:${port}/v1/route1`)
        expect(res.status).toBe(200)
      })

      it('exposes config via config() method', async () => {
        ekko = new MockServer(input())
        await ekko.start()
        const ekkoConfig = ekko.config()
        expect(ekkoConfig.server?.listening).toBe(true)
        expect(ekkoConfig.options).toMatchObject({ latency: 0, limit: '50mb', host: '127.0.0.1' })
      })
    })
  })

  describe('the suites on one started server each (tests/helpers.js serverSpecHelper)', () => {
    let ekko: MockServer
    let base: string
    const getUrl = (endpoint: string) => base + endpoint

    beforeEach(async () => {
      ekko = new MockServer(input())
      await ekko.start()
      base = `http://127.0.0.1:${(ekko.config().server!.address() as { port: number }).port}`
    })

    afterEach(async () => {
      await ekko.stop()
    })

    describe('Headers (middleware/tests/headers.spec.js)', () => {
      it('should respond with custom headers', async () => {
        const res = await request(getUrl('/v1/route7'))
        expect(res.status).toBe(200)
        expect(res.body).toEqual({ b: 2 })
        expect(res.header.ping).toBe('pong')
      })

      it('route 2 should respond with dummy-response2.json for POST with X-HTTP-Method-Override:GET', async () => {
        const res = await request(getUrl('/internal/v2/route2'), { method: 'POST', headers: { 'X-HTTP-Method-Override': 'GET' }, body: { bar: 'baz' } })
        expect(res.status).toBe(200)
        expect(res.body).toEqual({ b: 2 })
      })
    })

    describe('Multi-part (middleware/tests/mulit-part.spec.js)', () => {
      it('should respond with dummy-response-1.json for empty form fields and one file attachment', async () => {
        const res = await request(getUrl('/v1/route5'), { method: 'POST', body: multipart({ attatchment: 'dummy-response-1.json' }) })
        expect(res.status).toBe(200)
        expect(res.body).toEqual({ a: 1 })
      })

      it('should respond with dummy-response-2.json for empty form fields and one file attachment', async () => {
        const res = await request(getUrl('/v1/route5'), { method: 'POST', body: multipart({ attachment: 'dummy-response-2.json' }) })
        expect(res.status).toBe(200)
        expect(res.body).toEqual({ b: 2 })
      })

      it('should respond with dummy-response-2.json for 1 matching form field and one file attachment', async () => {
        const res = await request(getUrl('/v1/route5'), { method: 'POST', body: multipart({ attachment: 'dummy-response-2.json' }, { a: '1' }) })
        expect(res.status).toBe(200)
        expect(res.body).toEqual({ b: 2 })
      })

      it('should respond with dummy-response-3.json for 2 matching form fields and one file attachment', async () => {
        const res = await request(getUrl('/v1/route5'), { method: 'POST', body: multipart({ attachment: 'dummy-response-3.json' }, { a: '1', b: '2' }) })
        expect(res.status).toBe(200)
        expect(res.body).toEqual({ c: 3 })
      })

      it('should respond with dummy-response-4.json for field name that matches file input name', async () => {
        const res = await request(getUrl('/v1/route5'), { method: 'POST', body: multipart({ attachment: 'dummy-response-4.json' }, { a: '1', b: '2' }) })
        expect(res.status).toBe(200)
        expect(res.body).toEqual({ d: 4 })
      })
    })

    describe('Asynchronous (response/tests/asynchronous.spec.js)', () => {
      it('should respond with 202 then 201', async () => {
        let res = await request(getUrl('/v1/route6'))
        expect(res.status).toBe(202)
        expect(res.body).toEqual({ c: 3 })
        res = await request(getUrl('/v1/route6'))
        expect(res.status).toBe(201)
        expect(res.body).toEqual({ d: 4 })
      })

      it('should repeat dummy-response1.json x3, dummy-response2.json x1 then followed by a dummy-response2 x1', async () => {
        for (let i = 0; i < 3; i++) {
          const res = await request(getUrl('/v1/route8'))
          expect(res.status).toBe(202)
          expect(res.body).toEqual({ a: 1 })
        }
        let res = await request(getUrl('/v1/route8'))
        expect(res.status).toBe(202)
        expect(res.body).toEqual({ b: 2 })
        res = await request(getUrl('/v1/route8'))
        expect(res.status).toBe(201)
        expect(res.body).toEqual({ c: 3 })
      })
    })

    describe('Behavior (response/tests/behavior.spec.js)', () => {
      it('should respond with 404 for undefined route', async () => {
        expect((await request(getUrl('/dummy/route'))).status).toBe(404)
      })

      it('should respond with 404 when file does not exist', async () => {
        expect((await request(getUrl('/bad/file'))).status).toBe(404)
      })
    })

    describe('Scoring (response/tests/scoring.spec.js)', () => {
      const cases: Array<[string, string, Record<string, string> | undefined, unknown]> = [
        ['route 3 should respond with dummy-response2.json for GET with partial parameters', '/v1/route3?param1=1', undefined, { b: 2 }],
        ['route 3 should respond with dummy-response2.json for GET with specified parameters', '/v1/route3?param1=1&param2=2', undefined, { b: 2 }],
        ["route 3 should respond with dummy-response3.json for GET with '.' in parameters", '/v1/route3?param1=1&param2=2&param3=3', undefined, { c: 3 }],
        ['route 3 should respond with dummy-response3.json for GET with specified parameters', '/v1/route3?param1.2=abc', undefined, { c: 3 }],
        ['route 3 should respond with dummy-response4.json for GET with no matching parameters', '/v1/route3?param1=452', undefined, { d: 4 }],
        ['should respond with base file for undefined query route', '/internal/v2/route2?dummy=true', undefined, { b: 2 }],
        ['should respond with dummy-response-2.json for GET with 3 matching params (1 non-array, 2 array)', '/v1/route4?param1=a&param2=c&param2=d', undefined, { b: 2 }],
        ['should respond with dummy-response-3.json for GET with 4 matching params (2 array, 2 array)', '/v1/route4?param1=a&param1=b&param2=c&param2=d', undefined, { c: 3 }],
        ['should respond with dummy-response-4.json for GET with 2 matching params (2 array)', '/v1/route4?param2=c&param2=d', undefined, { d: 4 }],
        ['should respond dummy-response-4.json when GET request has query params but the configuration for queries is undefined', '/no/params?param1=a&param2=b', undefined, { d: 4 }],
        ['should respond with dummy-response-2.json for GET with regex pattern', '/v1/route10?a=1', undefined, { b: 2 }],
        ['should respond dummy-response-1.json when GET headers has pair a:1', '/v1/route10', { a: '1' }, { a: 1 }],
      ]
      it.each(cases)('%s', async (_name, path, headers, expected) => {
        const res = await request(getUrl(path), { headers })
        expect(res.status).toBe(200)
        expect(res.body).toEqual(expected)
      })

      it('should NOT response with dummy-response-2.json for GET with regex pattern', async () => {
        const res = await request(getUrl('/v1/route10?a=4'))
        expect(res.status).toBe(200)
        expect(res.body).not.toEqual({ b: 2 })
      })
    })

    describe('Routes (routes/tests/routes.spec.js)', () => {
      it('route 1 should be defined with GET, PUT, POST and DELETE', async () => {
        // The old test read express's router stack; here each verb is asked over HTTP.
        for (const method of ['GET', 'PUT', 'POST', 'DELETE']) {
          const res = await request(getUrl('/v1/route1'), { method })
          expect([method, res.status, res.body]).toEqual([method, 200, { a: 1 }])
        }
      })

      it('route 1 should respond with dummy-response1.json', async () => {
        const res = await request(getUrl('/v1/route1'))
        expect(res.status).toBe(200)
        expect(res.body).toEqual({ a: 1 })
      })

      it('route 2 should respond with dummy-response2.json for GET', async () => {
        const res = await request(getUrl('/internal/v2/route2'))
        expect(res.status).toBe(200)
        expect(res.body).toEqual({ b: 2 })
      })

      it('route 2 should respond with dummy-response3.json for POST', async () => {
        const res = await request(getUrl('/internal/v2/route2'), { method: 'POST', body: { bar: 'baz' } })
        expect(res.status).toBe(200)
        expect(res.body).toEqual({ c: 3 })
      })

      it('route 4 should respond with dummy-response-2.json for POST with parameters', async () => {
        const res = await request(getUrl('/v1/route4'), { method: 'POST', body: { a: { b: 'b' } } })
        expect(res.status).toBe(200)
        expect(res.body).toEqual({ b: 2 })
      })

      it('route 4 should response with dummy-response1.json [default file] for POST with no parameters', async () => {
        const res = await request(getUrl('/v1/route4'), { method: 'POST' })
        expect(res.status).toBe(200)
        expect(res.body).toEqual({ a: 1 })
      })

      it('route 9 should response with dummy-response1.json and status 201 for GET', async () => {
        const res = await request(getUrl('/v1/route9'))
        expect(res.status).toBe(201)
        expect(res.body).toEqual({ a: 1 })
      })

      it('route 9 should response with dummy-response2.json and status 422 for POST', async () => {
        const res = await request(getUrl('/v1/route9'), { method: 'POST' })
        expect(res.status).toBe(203)
        expect(res.body).toEqual({ b: 2 })
      })
    })
  })
})
