/**
 * Which answers `mockyard check --openapi` and the `validate` option hold to the document, and
 * how (docs/behaviour.md, "Checking mocks" and "Traffic checked against a contract"): a redirect
 * by the status it is sent with, by both alike; the answers the engine builds itself (the 400 of
 * a body that does not parse, the 413 of a form over the field limit, the 426 of a WebSocket-only
 * route) not at all, their request only; and a `params` key that names a header parameter.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startMockServer } from 'mockyard/node'
import { checkOpenApi, loadOpenApi } from '../../src/check/check-openapi.js'
import { writeFiles } from './project.js'

const DOC = `openapi: 3.1.0
info: { title: shop, version: '2' }
servers: [{ url: /api }]
paths:
  /me:
    get:
      parameters:
        - { name: Accept-Language, in: header, schema: { type: string } }
      responses:
        '200': { description: Me. }
        '401': { description: Signed out. }
  /old:
    get:
      responses:
        '301': { description: Moved. }
  /webhooks:
    post:
      parameters:
        - { name: X-Signature, in: header, schema: { type: string } }
      requestBody:
        content:
          application/json:
            schema: { type: object, properties: { event: { type: string } } }
          application/x-www-form-urlencoded:
            schema: { type: object, properties: { event: { type: string } } }
      responses:
        '202': { description: Taken. }
  /chat:
    get:
      responses:
        '200': { description: Not a WebSocket. }
`

let root: string
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'mockyard-answers-'))
  writeFiles(root, {
    'openapi.yaml': DOC,
    'routes.json': {
      'api/me': { get: { url: '/api/users/u1' } },
      'api/old': { get: { url: '/api/new', status: 301 } },
      'api/webhooks': { post: { status: 202 } },
      'api/chat': { websocket: [{ send: 'hello' }] },
    },
  })
})
afterAll(() => rmSync(root, { recursive: true, force: true }))

async function checkProblems(routes: Record<string, unknown>) {
  const api = await loadOpenApi(join(root, 'openapi.yaml'), (file) => file.slice(root.length + 1))
  const { entries } = await checkOpenApi(api, [{ file: 'routes.json', routes, data: join(root, 'data') }])
  return entries.map((entry) => `${entry.pointer}: ${entry.message}. ${entry.fix}`)
}

describe('a redirect (url)', () => {
  it('check and validate both hold the status it is sent with (302 unless a 3xx is given) to the document', async () => {
    const routes = { 'api/me': { get: { url: '/api/users/u1' } }, 'api/old': { get: { url: '/api/new', status: 301 } } }
    expect(await checkProblems(routes)).toEqual([
      '/api~1me/get/url: GET /me declares no response for status 302 (it declares 200, 401). Declare the redirect status in the document if the API answers it, or give the route a status the document declares (a redirect is sent with its status when that is a 3xx, else with 302).',
    ])
    // A status that is not a 3xx is not the one sent: the redirect still goes out as 302.
    expect(await checkProblems({ 'api/old': { get: { url: '/api/new', status: 200 } } })).toEqual([
      '/api~1old/get/url: GET /old declares no response for status 302 (it declares 301). Declare the redirect status in the document if the API answers it, or give the route a status the document declares (a redirect is sent with its status when that is a 3xx, else with 302).',
    ])
    const server = await startMockServer({ routes: join(root, 'routes.json'), validate: join(root, 'openapi.yaml') })
    try {
      expect((await fetch(`${server.url}/api/me`, { redirect: 'manual' })).status).toBe(302)
      expect((await fetch(`${server.url}/api/old`, { redirect: 'manual' })).status).toBe(301)
      const [me, old] = server.requests()
      expect(me!.violations).toEqual([{ where: 'response', pointer: '', message: 'GET /me declares no response for status 302 (it declares 200, 401)', schema: join(root, 'openapi.yaml#/paths/~1me/get/responses') }])
      expect(old).not.toHaveProperty('violations')
    } finally {
      await server.stop()
    }
  })
})

describe("the engine's own answers", () => {
  it('the 400 of a body that does not parse, the 413 of a form over the limit, the 426 of a WebSocket route: their request is checked, not their answer', async () => {
    const server = await startMockServer({ routes: join(root, 'routes.json'), validate: join(root, 'openapi.yaml') })
    try {
      const json = { 'content-type': 'application/json' }
      expect((await fetch(`${server.url}/api/webhooks`, { method: 'POST', headers: json, body: '{bad' })).status).toBe(400)
      const form = { 'content-type': 'application/x-www-form-urlencoded' }
      const fields = Array.from({ length: 1001 }, (_, i) => `f${i}=1`).join('&')
      expect((await fetch(`${server.url}/api/webhooks`, { method: 'POST', headers: form, body: fields })).status).toBe(413)
      expect((await fetch(`${server.url}/api/chat`)).status).toBe(426)
      // The same route's own answer is still checked.
      expect((await fetch(`${server.url}/api/webhooks`, { method: 'POST', headers: json, body: '{"event":"x"}' })).status).toBe(202)
      const [bad, tooMany, upgrade, good] = server.requests()
      expect([bad!.status, tooMany!.status, upgrade!.status, good!.status]).toEqual([400, 413, 426, 202])
      expect(bad!.violations).toEqual([{ where: 'request', pointer: '', message: 'the request body is not valid JSON, and POST /webhooks takes application/json', schema: join(root, 'openapi.yaml#/paths/~1webhooks/post/requestBody/content') }])
      expect(tooMany).not.toHaveProperty('violations')
      expect(upgrade).not.toHaveProperty('violations')
      expect(good).not.toHaveProperty('violations')
      // They are answers of the operation all the same.
      expect(server.coverage().operations.filter((operation) => operation.answered > 0).map((operation) => `${operation.method} ${operation.path} ${operation.answered}`)).toEqual(['POST /webhooks 3', 'GET /chat 1'])
    } finally {
      await server.stop()
    }
  })
})

describe('a params key that names a header parameter', () => {
  it('is reported as a header parameter, in any case, with the headers conditions as the fix', async () => {
    expect(
      await checkProblems({
        'api/me': { get: [{ status: 200 }, { status: 401, params: { 'accept-language': 'fr' } }] },
        'api/webhooks': { post: [{ status: 202 }, { status: 202, params: { 'X-Signature': 'abc', event: 'x' } }] },
      }),
    ).toEqual([
      '/api~1me/get/1/params/accept-language: "accept-language" is a header parameter of GET /me, and params conditions read the query string, never the headers, so this condition is never met. Move it to the entry\'s headers conditions ("headers": { "accept-language": … }), or remove the condition.',
      '/api~1webhooks/post/1/params/X-Signature: "X-Signature" is a header parameter of POST /webhooks, and params conditions read the request body and query string, never the headers, so this condition is never met. Move it to the entry\'s headers conditions ("headers": { "X-Signature": … }), or remove the condition.',
    ])
  })
})
