/**
 * The `validate` checker on its own (src/check/traffic.ts), over documents written to disk: the
 * answers other than a plain body (streams, `events`, faults) are checked for status and content
 * type only, HEAD is checked as GET, 3.0's `nullable` and `default` responses apply, and an
 * undeclared query parameter is no violation.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadTrafficCheck } from '../../src/check/traffic.js'
import type { MockResponse } from '../../src/core/build-response.js'
import type { Exchange, TrafficCheck } from '../../src/harness/traffic-check.js'

let root: string
let check: TrafficCheck
let check30: TrafficCheck

const DOC_31 = {
  openapi: '3.1.0',
  info: { title: 't', version: '1' },
  servers: [{ url: 'https://{host}/api/{version}', variables: { host: { default: 'x.test' }, version: { default: 'v3' } } }],
  paths: {
    '/feed': {
      get: {
        responses: {
          200: { description: 'ok', content: { 'application/json': { schema: { type: 'object', required: ['items'] } } } },
          default: { description: 'error', content: { 'application/problem+json': { schema: { type: 'object', required: ['title'] } } } },
        },
      },
    },
    '/users': {
      post: {
        requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/User' } } } },
        responses: { 201: { description: 'created', content: { 'application/json': { schema: { $ref: '#/components/schemas/User' } } } } },
      },
    },
    '/events': { get: { responses: { 200: { description: 'a stream', content: { 'text/event-stream': { schema: { type: 'string' } } } } } } },
    // Two operations with one shared response object.
    '/pets': { get: { responses: { 200: { $ref: '#/components/responses/Pets' } } } },
    '/animals': { get: { responses: { 200: { $ref: '#/components/responses/Pets' } } } },
  },
}

Object.assign(DOC_31, {
  components: {
    responses: {
      Pets: { description: 'pets', content: { 'application/json': { schema: { type: 'array', items: { type: 'object', required: ['name'] } } } } },
    },
    schemas: {
      User: { type: 'object', required: ['id', 'email', 'password'], properties: { id: { type: 'integer', readOnly: true }, email: { type: 'string' }, password: { type: 'string', writeOnly: true } } },
    },
  },
})

const DOC_30 = {
  openapi: '3.0.3',
  info: { title: 't', version: '1' },
  paths: {
    '/files/{name}.json': {
      get: {
        parameters: [{ name: 'name', in: 'path', required: true, schema: { type: 'string', pattern: '^[a-z]+$' } }],
        responses: { 200: { description: 'ok', content: { 'application/json': { schema: {} } } } },
      },
    },
    '/pets/{id}': {
      get: {
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }],
        responses: { 200: { description: 'ok', content: { 'application/json': { schema: { type: 'object', properties: { name: { type: 'string', nullable: true } }, additionalProperties: false } } } } },
      },
    },
  },
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'mockyard-traffic-'))
  writeFileSync(join(root, 'v31.json'), JSON.stringify(DOC_31))
  writeFileSync(join(root, 'v30.json'), JSON.stringify(DOC_30))
  check = await loadTrafficCheck(join(root, 'v31.json'), (file) => file.slice(root.length + 1))
  check30 = await loadTrafficCheck(join(root, 'v30.json'), (file) => file.slice(root.length + 1))
})
afterAll(() => rmSync(root, { recursive: true, force: true }))

const headers = (values: Record<string, string> = {}): Exchange['headers'] => ({ get: (name) => values[name.toLowerCase()] ?? null })
const exchange = (method: string, url: string, response: Partial<MockResponse> & Record<string, unknown>): Exchange => ({
  method,
  url,
  headers: headers(),
  body: null,
  response: { status: 200, headers: { 'content-type': 'application/json' }, body: null, ...response } as MockResponse,
})

describe('answers other than a plain body: status and content type only', () => {
  it('a streamed answer is not parsed, whatever it carries', () => {
    const stream = new ReadableStream()
    expect(check.check(exchange('GET', 'https://x.test/api/v3/feed', { body: stream as never, stream: true }))).toEqual([])
    expect(check.check(exchange('GET', 'https://x.test/api/v3/feed', { body: '{"not":"items"}', stream: true }))).toEqual([])
  })

  it('an events answer with a content type the operation does not declare is one violation', () => {
    expect(check.check(exchange('GET', 'https://x.test/api/v3/feed', { headers: { 'content-type': 'text/event-stream' }, body: 'data: 1\n\n', events: [{ data: 1 }] }))).toEqual([
      { where: 'response', pointer: '', message: 'the answer is sent as text/event-stream, which GET /feed does not declare for status 200 (it declares application/json)', schema: 'v31.json#/paths/~1feed/get/responses/200/content' },
    ])
    expect(check.check(exchange('GET', 'https://x.test/api/v3/events', { headers: { 'content-type': 'text/event-stream' }, body: 'data: 1\n\n' }))).toEqual([])
  })

  it('a fault that sends no status is not checked; a faulted status falls to `default`', () => {
    expect(check.check(exchange('GET', 'https://x.test/api/v3/feed', { status: 0, fault: 'reset' }))).toEqual([])
    expect(check.check(exchange('GET', 'https://x.test/api/v3/feed', { status: 503, headers: { 'content-type': 'application/problem+json' }, body: '{}', fault: 'truncate' }))).toEqual([])
    expect(check.check(exchange('GET', 'https://x.test/api/v3/feed', { status: 503, headers: { 'content-type': 'application/problem+json' }, body: '{}' }))).toEqual([
      { where: 'response', pointer: '', message: "must have required property 'title' (response default of GET /feed)", schema: 'v31.json#/paths/~1feed/get/responses/default/content/application~1problem+json/schema/required' },
    ])
  })
})

describe('the operation and the parameters', () => {
  it('the base path comes from the server variables; HEAD is checked as GET; an undeclared query parameter is no violation', () => {
    expect(check.check(exchange('HEAD', 'https://x.test/api/v3/feed?_=123', { body: null }))).toEqual([])
    expect(check.check(exchange('GET', 'https://x.test/feed', { body: '{"items":[]}' }))).toEqual([
      { where: 'request', pointer: '', message: "no path of v31.json matches GET /feed (the servers' base path: /api/v3)", schema: 'v31.json#/paths' },
    ])
  })

  it("3.0: nullable is honoured, and a path parameter is read as its type", () => {
    expect(check30.check(exchange('GET', 'http://localhost/pets/7', { body: '{"name":null}' }))).toEqual([])
    expect(check30.check(exchange('GET', 'http://localhost/pets/seven', { body: '{"name":"Rex","age":3}' }))).toEqual([
      { where: 'request', pointer: '/path/id', message: 'the path parameter "id" must be integer (GET /pets/{id})', schema: 'v30.json#/paths/~1pets~1{id}/get/parameters/0/schema/type' },
      { where: 'response', pointer: '', message: 'must NOT have additional properties ("age") (response 200 of GET /pets/{id})', schema: 'v30.json#/paths/~1pets~1{id}/get/responses/200/content/application~1json/schema/additionalProperties' },
    ])
  })

  it('a path parameter inside a segment ({name}.json) is read from the part the literals leave', () => {
    const messages = (path: string) => check30.check(exchange('GET', `http://localhost${path}`, { body: new TextEncoder().encode('{}') })).map((violation) => violation.message)
    expect(messages('/files/abc.json')).toEqual([])
    expect(messages('/files/ABC.json')).toEqual(['the path parameter "name" must match pattern "^[a-z]+$" (GET /files/{name}.json)'])
  })

  it('the same data file bytes are validated once, and keep their violations', () => {
    const bytes = new TextEncoder().encode('{"name":5}')
    const first = check30.check(exchange('GET', 'http://localhost/pets/1', { body: bytes }))
    expect(first).toHaveLength(1)
    expect(check30.check(exchange('GET', 'http://localhost/pets/2', { body: bytes }))).toEqual(first)
  })

  it('one data file served by two operations that share a response: each violation names its own operation', () => {
    const bytes = new TextEncoder().encode('[{"id":1}]')
    const messages = (path: string) => check.check(exchange('GET', `https://x.test/api/v3${path}`, { body: bytes })).map((violation) => violation.message)
    expect(messages('/pets')).toEqual(["must have required property 'name' (response 200 of GET /pets)"])
    expect(messages('/animals')).toEqual(["must have required property 'name' (response 200 of GET /animals)"])
  })

  it('a readOnly property is required in answers only, a writeOnly one in requests only', () => {
    const post = (body: string, answer: string) => ({ ...exchange('POST', 'https://x.test/api/v3/users', { status: 201, body: answer }), headers: headers({ 'content-type': 'application/json' }), body: new TextEncoder().encode(body) })
    expect(check.check(post('{"email":"a@b.test","password":"x"}', '{"id":1,"email":"a@b.test"}'))).toEqual([])
    expect(check.check(post('{"password":"x"}', '{"email":"a@b.test"}')).map((v) => `${v.where} ${v.message}`)).toEqual([
      "request must have required property 'email' (request body of POST /users)",
      "response must have required property 'id' (response 201 of POST /users)",
    ])
  })

  it('coverage counts each operation answered, in the document order', () => {
    const coverage = check.coverage()
    expect(coverage.operations).toEqual([
      { method: 'GET', path: '/feed', answered: 7 },
      { method: 'POST', path: '/users', answered: 2 },
      { method: 'GET', path: '/events', answered: 1 },
      { method: 'GET', path: '/pets', answered: 1 },
      { method: 'GET', path: '/animals', answered: 1 },
    ])
    expect(coverage.text).toBe('v31.json: 5 of 5 operations answered')
  })
})

describe('parameters as their styles and schemas send them', () => {
  const DOC_STYLES = {
    openapi: '3.1.0',
    info: { title: 't', version: '1' },
    paths: {
      '/charges': {
        get: {
          parameters: [
            // Stripe's shape: an integer, or a range object in deepObject style.
            { name: 'created', in: 'query', style: 'deepObject', schema: { anyOf: [{ type: 'integer' }, { type: 'object', properties: { gt: { type: 'integer' } } }] } },
            { name: 'limit', in: 'query', schema: { oneOf: [{ type: 'integer', minimum: 1 }, { type: 'string', enum: ['all'] }] } },
            { name: 'page', in: 'query', schema: { allOf: [{ $ref: '#/components/schemas/Page' }] } },
            { name: 'ids', in: 'query', style: 'pipeDelimited', explode: false, schema: { type: 'array', items: { type: 'integer' } } },
            { name: 'words', in: 'query', style: 'spaceDelimited', explode: false, schema: { type: 'array', items: { type: 'string', enum: ['a', 'b'] } } },
          ],
          responses: { 200: { description: 'ok' } },
        },
      },
      '/points{;coords}': { get: { parameters: [{ name: 'coords', in: 'path', required: true, style: 'matrix', schema: { type: 'array', items: { type: 'integer' } } }], responses: { 200: { description: 'ok' } } } },
      '/colors/{.color}': { get: { parameters: [{ name: 'color', in: 'path', required: true, style: 'label', schema: { type: 'string', enum: ['red', 'blue'] } }], responses: { 200: { description: 'ok' } } } },
      '/users': {
        get: {
          parameters: [
            { name: 'filter', in: 'query', required: true, style: 'deepObject', explode: true, schema: { type: 'object', additionalProperties: false, properties: { role: { type: 'string' }, age: { type: 'integer', minimum: 18 }, tags: { type: 'array', items: { type: 'integer' } }, active: { type: 'boolean' } } } },
            { name: 'point', in: 'query', required: true, schema: { type: 'object', required: ['lat', 'lng'], properties: { lat: { type: 'number' }, lng: { type: 'number' } } } },
          ],
          responses: { 200: { description: 'ok' } },
        },
      },
    },
    components: { schemas: { Page: { type: 'integer', minimum: 1 } } },
  }
  let styles: TrafficCheck
  beforeAll(async () => {
    writeFileSync(join(root, 'styles.json'), JSON.stringify(DOC_STYLES))
    styles = await loadTrafficCheck(join(root, 'styles.json'), (file) => file.slice(root.length + 1))
  })
  const messages = (path: string) => styles.check(exchange('GET', `http://localhost${path}`, { status: 200, headers: {}, body: null })).map((violation) => `${violation.pointer}: ${violation.message}`)

  it('a query value against anyOf, oneOf or allOf is read as the type a branch names', () => {
    expect(messages('/charges?created=1700000000&limit=10&page=2')).toEqual([])
    expect(messages('/charges?limit=all')).toEqual([])
    expect(messages('/charges?page=0')).toEqual(['/query/page: the query parameter "page" must be >= 1 (GET /charges)'])
    expect(messages('/charges?limit=none')).toContain('/query/limit: the query parameter "limit" must match exactly one schema in oneOf (GET /charges)')
  })

  it('pipeDelimited and spaceDelimited arrays are split', () => {
    expect(messages('/charges?ids=1|2|3&words=a%20b')).toEqual([])
    expect(messages('/charges?ids=1|x')).toEqual(['/query/ids/1: the query parameter "ids" must be integer (GET /charges)'])
    expect(messages('/charges?words=a+c')).toEqual(['/query/words/1: the query parameter "words" must be equal to one of the allowed values ("a", "b") (GET /charges)'])
  })

  it('matrix ({;coords}) and label ({.color}) path parameters are read without their prefix', () => {
    expect(messages('/points;coords=1,2')).toEqual([])
    expect(messages('/colors/.red')).toEqual([])
    expect(messages('/points;coords=1,x')).toEqual(['/path/coords/1: the path parameter "coords" must be integer (GET /points{;coords})'])
    expect(messages('/colors/.green')).toEqual(['/path/color: the path parameter "color" must be equal to one of the allowed values ("red", "blue") (GET /colors/{.color})'])
  })

  it('a required object parameter spread over the query (deepObject, form with explode) is present', () => {
    expect(messages('/users?filter[role]=admin&lat=48.8&lng=2.3')).toEqual([])
    expect(messages('/users?lat=48.8&lng=2.3')).toEqual(['/query/filter: the query parameter "filter" is required by GET /users, and the request has none'])
    expect(messages('/users?filter[role]=admin')).toEqual(['/query/point: the query parameter "point" is required by GET /users, and the request has none'])
  })

  it("an object spread over the query is validated, each property read as its schema's type", () => {
    expect(messages('/users?filter[age]=30&filter[tags]=1&filter[tags]=2&filter[active]=true&lat=48.8&lng=2.3')).toEqual([])
    expect(messages('/users?filter[age]=12&lat=1&lng=2')).toEqual(['/query/filter/age: the query parameter "filter" must be >= 18 (GET /users)'])
    expect(messages('/users?filter[tags]=1&filter[tags]=x&lat=1&lng=2')).toEqual(['/query/filter/tags/1: the query parameter "filter" must be integer (GET /users)'])
    expect(messages('/users?filter[colour]=red&lat=1&lng=2')).toEqual(['/query/filter: the query parameter "filter" must NOT have additional properties ("colour") (GET /users)'])
    // form with explode: the properties it names, read as numbers; one missing is a violation of the object.
    expect(messages('/users?filter[role]=a&lat=north&lng=2')).toEqual(['/query/point/lat: the query parameter "point" must be number (GET /users)'])
    expect(messages('/users?filter[role]=a&lat=1')).toEqual(["/query/point: the query parameter \"point\" must have required property 'lng' (GET /users)"])
    // A deeper filter[a][b] has no agreed reading: present, not validated.
    expect(messages('/users?filter[a][b]=1&lat=1&lng=2')).toEqual([])
    // Stripe's range object, beside its integer form.
    expect(messages('/charges?created[gt]=1700000000')).toEqual([])
    expect(messages('/charges?created[gt]=soon')).toContain('/query/created: the query parameter "created" must match a schema in anyOf (GET /charges)')
  })
})

describe('text beside a template in one segment', () => {
  it('tells /reports/{id}.json from /reports/{id}.csv, and a request without the suffix matches neither', async () => {
    const doc = {
      openapi: '3.0.3',
      info: { title: 't', version: '1' },
      paths: {
        '/reports/{id}.json': { get: { parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }], responses: { 200: { description: 'ok', content: { 'application/json': { schema: { type: 'object' } } } } } } },
        '/reports/{id}.csv': { get: { parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }], responses: { 200: { description: 'ok', content: { 'text/csv': { schema: { type: 'string' } } } } } } },
      },
    }
    writeFileSync(join(root, 'suffix.json'), JSON.stringify(doc))
    const suffix = await loadTrafficCheck(join(root, 'suffix.json'), (file) => file.slice(root.length + 1))
    const messages = (path: string, type: string, body: string) => suffix.check(exchange('GET', `http://localhost${path}`, { headers: { 'content-type': type }, body })).map((violation) => violation.message)
    expect(messages('/reports/5.csv', 'text/csv', 'id\n5\n')).toEqual([])
    expect(messages('/reports/5.json', 'application/json', '{}')).toEqual([])
    expect(messages('/reports/5', 'application/json', '{}')).toEqual(['no path of suffix.json matches GET /reports/5'])
    expect(suffix.coverage().answered).toBe(2)
  })
})

describe('numbers as prices are written', () => {
  it('multipleOf 0.01 takes 19.99, 4.35 and 0.07 (not multiples in floating point) and refuses 19.995', async () => {
    const doc = {
      openapi: '3.1.0',
      info: { title: 't', version: '1' },
      paths: {
        '/prices': {
          post: {
            requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Money' } } } },
            responses: { 200: { description: 'ok', content: { 'application/json': { schema: { $ref: '#/components/schemas/Money' } } } } },
          },
        },
      },
      components: { schemas: { Money: { type: 'object', properties: { amount: { type: 'number', minimum: 0, multipleOf: 0.01 } } } } },
    }
    writeFileSync(join(root, 'money.json'), JSON.stringify(doc))
    const money = await loadTrafficCheck(join(root, 'money.json'), (file) => file.slice(root.length + 1))
    const messages = (sent: number, answered: number) =>
      money
        .check({ ...exchange('POST', 'http://localhost/prices', { body: JSON.stringify({ amount: answered }) }), headers: headers({ 'content-type': 'application/json' }), body: new TextEncoder().encode(JSON.stringify({ amount: sent })) })
        .map((violation) => `${violation.where} ${violation.message}`)
    expect(messages(19.99, 4.35)).toEqual([])
    expect(messages(0.07, 1998.01)).toEqual([])
    expect(messages(19.995, 0.001)).toEqual([
      'request must be multiple of 0.01 (request body of POST /prices)',
      'response must be multiple of 0.01 (response 200 of POST /prices)',
    ])
  })
})
