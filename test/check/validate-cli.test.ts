/**
 * `mockyard --validate <doc>`, run as a user runs it: the built CLI serving the planted-bad mocks
 * of `mockyard check`'s fixture (API_PROJECT) over real HTTP. Each violation is in the request
 * log (`GET /__mockyard/requests`) with its pointer and schema path, and in a warn line; the
 * coverage lists the operations answered and never answered.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { killClis, runCli, startCli, type RunningCli } from '../cli/support.js'
import { API_PROJECT, writeFiles } from './project.js'

let root: string
let cli: RunningCli

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'mockyard-validate-'))
  writeFiles(root, API_PROJECT)
  writeFiles(root, {
    // The fixture's document, plus typed query and path parameters and a required request body.
    'typed/openapi.yaml': `openapi: 3.1.0
info: { title: typed, version: '1' }
servers: [{ url: /v1 }]
paths:
  /items/{id}:
    get:
      operationId: getItem
      parameters:
        - { name: id, in: path, required: true, schema: { type: integer } }
        - { name: limit, in: query, required: true, schema: { type: integer, maximum: 50 } }
        - { name: tags, in: query, schema: { type: array, items: { type: string, enum: [a, b] } } }
      responses:
        '200':
          description: ok
          content:
            application/json:
              schema: { type: object, required: [id], properties: { id: { type: integer } } }
  /notes:
    post:
      operationId: createNote
      requestBody:
        required: true
        content:
          application/json:
            schema: { type: object, required: [text], properties: { text: { type: string } } }
      responses:
        '201': { description: created }
        default: { description: an error }
`,
    'typed/routes.json': { 'v1/items/:id': { file: 'item.json' }, 'v1/notes': { post: { status: 201 } } },
    'typed/data/item.json': { id: 1 },
  })
})
afterAll(() => rmSync(root, { recursive: true, force: true }))
afterEach(() => killClis())

async function requests(): Promise<Array<Record<string, any>>> {
  return ((await (await fetch(`${cli.url}/__mockyard/requests`)).json()) as { requests: Array<Record<string, any>> }).requests
}

/** Waits until stderr holds `text` (the warn line is written right after the answer). */
async function stderrWith(text: string): Promise<string> {
  for (let i = 0; i < 100 && !cli.stderr().includes(text); i++) await new Promise((resolve) => setTimeout(resolve, 20))
  return cli.stderr()
}

describe('mockyard --validate: the planted-bad mocks of the check fixture', () => {
  it('records each violation with its pointer and schema path, and warns about it', async () => {
    cli = await startCli(['--routes', 'api/routes.json', '--data', 'api/data', '--validate', 'api/openapi.yaml', '--port', '0', '--latency', '0', '--no-watch'], { cwd: root, env: { ...process.env, NO_COLOR: '1' } })
    const base = cli.url
    expect((await fetch(`${base}/api/v2/users?page=2`)).status).toBe(200)
    expect((await fetch(`${base}/api/v2/users/7`)).status).toBe(200)
    expect((await fetch(`${base}/api/v2/users/7`, { method: 'PUT' })).status).toBe(200)
    expect((await fetch(`${base}/api/v2/users/42/`)).status).toBe(201)
    expect((await fetch(`${base}/api/v2/orders`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ lines: [{ sku: 'X', colour: 'red' }] }) })).status).toBe(201)
    expect((await fetch(`${base}/api/v2/report`)).status).toBe(200)
    expect((await fetch(`${base}/api/v2/carts`)).status).toBe(200)
    expect((await fetch(`${base}/api/v2/users/7`, { method: 'DELETE' })).status).toBe(204)

    const log = await requests()
    const byRequest = Object.fromEntries(log.map((record) => [`${record.method} ${new URL(record.url).pathname}`, record.violations]))
    expect(byRequest['GET /api/v2/users']).toEqual([
      { where: 'response', pointer: '/1', message: 'must NOT have additional properties ("admin") (response 200 of GET /users)', schema: 'api/schemas.yaml#/User/additionalProperties' },
      { where: 'response', pointer: '/1/id', message: 'must be integer (response 200 of GET /users)', schema: 'api/schemas.yaml#/User/properties/id/type' },
      { where: 'response', pointer: '/1/email', message: 'must match format "email" (response 200 of GET /users)', schema: 'api/schemas.yaml#/User/properties/email/format' },
    ])
    expect(byRequest['GET /api/v2/users/7']).toEqual([{ where: 'response', pointer: '', message: "must have required property 'email' (response 200 of GET /users/{id})", schema: 'api/schemas.yaml#/User/required' }])
    expect(byRequest['PUT /api/v2/users/7']).toEqual([{ where: 'request', pointer: '', message: 'PUT /api/v2/users/7 is not an operation of api/openapi.yaml (the path has GET, DELETE)', schema: 'api/openapi.yaml#/paths' }])
    expect(byRequest['GET /api/v2/users/42/']).toEqual([{ where: 'response', pointer: '', message: 'GET /users/{id} declares no response for status 201 (it declares 200, 404)', schema: 'api/openapi.yaml#/paths/~1users~1{id}/get/responses' }])
    expect(byRequest['POST /api/v2/orders']).toEqual([
      { where: 'response', pointer: '', message: 'the answer is sent as application/xml, which POST /orders does not declare for status 201 (it declares application/json)', schema: 'api/openapi.yaml#/paths/~1orders/post/responses/201/content' },
    ])
    expect(byRequest['GET /api/v2/report']).toEqual([{ where: 'response', pointer: '', message: 'the answer is sent as text/plain, which GET /report.pdf does not declare for status 200 (it declares application/pdf)', schema: 'api/openapi.yaml#/paths/~1report.pdf/get/responses/200/content' }])
    expect(byRequest['GET /api/v2/carts']).toEqual([{ where: 'request', pointer: '', message: "no path of api/openapi.yaml matches GET /api/v2/carts (the servers' base path: /api/v2)", schema: 'api/openapi.yaml#/paths' }])
    // An undeclared query parameter (page) is no violation; an answer that agrees has none.
    expect(byRequest['DELETE /api/v2/users/7']).toBeUndefined()

    const stderr = await stderrWith('GET /api/v2/carts 200')
    expect(stderr).toContain('[mockyard] contract: GET /api/v2/users?page=2 200: response users.json#/1/id: must be integer (response 200 of GET /users); schema api/schemas.yaml#/User/properties/id/type\n')
    expect(stderr).toContain('[mockyard] contract: POST /api/v2/orders 201: response order.xml#: the answer is sent as application/xml, which POST /orders does not declare for status 201 (it declares application/json); schema api/openapi.yaml#/paths/~1orders/post/responses/201/content\n')

    const coverage = (await (await fetch(`${base}/__mockyard/coverage`)).json()) as Record<string, unknown>
    expect(coverage).toEqual({
      document: 'api/openapi.yaml',
      operations: [
        { method: 'GET', path: '/users', operationId: 'listUsers', answered: 1 },
        { method: 'GET', path: '/users/{id}', operationId: 'getUser', answered: 2 },
        { method: 'DELETE', path: '/users/{id}', operationId: 'deleteUser', answered: 1 },
        { method: 'POST', path: '/orders', operationId: 'createOrder', answered: 1 },
        { method: 'GET', path: '/report.pdf', operationId: 'getReport', answered: 1 },
        { method: 'GET', path: '/health', operationId: 'health', answered: 0 },
      ],
      answered: 5,
      total: 6,
      text: 'api/openapi.yaml: 5 of 6 operations answered; never answered:\n  GET /health (health)',
    })
    // A reset starts the log afresh, and keeps the coverage of the run.
    await fetch(`${base}/__mockyard/reset`, { method: 'POST' })
    const text = await (await fetch(`${base}/__mockyard/coverage?format=text`)).text()
    expect(text).toBe('api/openapi.yaml: 5 of 6 operations answered; never answered:\n  GET /health (health)\n')
  })

  it('checks parameters (path, query types, required) and a required request body', async () => {
    cli = await startCli(['--routes', 'typed/routes.json', '--data', 'typed/data', '--validate', 'typed/openapi.yaml', '--port', '0', '--latency', '0', '--no-watch', '--log', 'warn'], { cwd: root })
    await fetch(`${cli.url}/v1/items/abc?tags=c&cache=1`)
    await fetch(`${cli.url}/v1/items/3?limit=80&tags=a&tags=b`)
    await fetch(`${cli.url}/v1/items/3?limit=10`)
    await fetch(`${cli.url}/v1/notes`, { method: 'POST' })
    await fetch(`${cli.url}/v1/notes`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'hi' })
    await fetch(`${cli.url}/v1/notes`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text: 5 }) })
    const violations = (await requests()).map((record) => record.violations ?? [])
    expect(violations).toEqual([
      [
        { where: 'request', pointer: '/path/id', message: 'the path parameter "id" must be integer (GET /items/{id})', schema: 'typed/openapi.yaml#/paths/~1items~1{id}/get/parameters/0/schema/type' },
        { where: 'request', pointer: '/query/limit', message: 'the query parameter "limit" is required by GET /items/{id}, and the request has none', schema: 'typed/openapi.yaml#/paths/~1items~1{id}/get/parameters' },
        { where: 'request', pointer: '/query/tags/0', message: 'the query parameter "tags" must be equal to one of the allowed values ("a", "b") (GET /items/{id})', schema: 'typed/openapi.yaml#/paths/~1items~1{id}/get/parameters/2/schema/items/enum' },
      ],
      [{ where: 'request', pointer: '/query/limit', message: 'the query parameter "limit" must be <= 50 (GET /items/{id})', schema: 'typed/openapi.yaml#/paths/~1items~1{id}/get/parameters/1/schema/maximum' }],
      [],
      [{ where: 'request', pointer: '', message: 'POST /notes requires a request body, and the request has none', schema: 'typed/openapi.yaml#/paths/~1notes/post/requestBody/required' }],
      [{ where: 'request', pointer: '', message: 'the request body is sent as text/plain, which POST /notes does not accept (it declares application/json)', schema: 'typed/openapi.yaml#/paths/~1notes/post/requestBody/content' }],
      [{ where: 'request', pointer: '/text', message: 'must be string (request body of POST /notes)', schema: 'typed/openapi.yaml#/paths/~1notes/post/requestBody/content/application~1json/schema/properties/text/type' }],
    ])
    expect(cli.stderr()).toContain('[mockyard] contract: POST /v1/notes 201: request#/text: must be string (request body of POST /notes); schema typed/openapi.yaml#/paths/~1notes/post/requestBody/content/application~1json/schema/properties/text/type')
  })

  it('a catastrophic pattern against a crafted value is a violation, in linear time: the server keeps serving', async () => {
    // The redos fixture of hostile-openapi.test.ts: ^(a+)+$ backtracks for 2^40 steps on this value.
    writeFiles(root, {
      'redos/routes.json': { 'v1/users': { file: 'crafted.json' }, 'v1/pets': { file: 'pets.json' } },
      'redos/crafted.json': [{ name: `${'a'.repeat(40)}!` }],
      'redos/pets.json': [{ id: 1 }],
      'redos/openapi.yaml': `openapi: 3.1.0
info: { title: hostile, version: '1' }
servers: [{ url: /v1 }]
paths:
  /users:
    get:
      responses:
        '200':
          description: The users.
          content:
            application/json:
              schema: { type: array, items: { type: object, properties: { name: { type: string, pattern: '^(a+)+$' } } } }
  /pets:
    get:
      responses:
        '200':
          description: The pets.
          content:
            application/json:
              schema: { type: array, items: { type: object, properties: { id: { type: integer }, tag: { type: string, pattern: '^(?!x)' } } } }
`,
    })
    cli = await startCli(['--routes', 'redos/routes.json', '--data', 'redos', '--validate', 'redos/openapi.yaml', '--port', '0', '--latency', '0', '--no-watch', '--log', 'error'], { cwd: root })
    expect((await fetch(`${cli.url}/v1/users`, { signal: AbortSignal.timeout(10_000) })).status).toBe(200)
    expect((await fetch(`${cli.url}/v1/pets`, { signal: AbortSignal.timeout(10_000) })).status).toBe(200)
    expect((await requests()).map((record) => record.violations)).toEqual([
      [{ where: 'response', pointer: '/0/name', message: 'must match pattern "^(a+)+$" (response 200 of GET /users)', schema: 'redos/openapi.yaml#/paths/~1users/get/responses/200/content/application~1json/schema/items/properties/name/pattern' }],
      undefined,
    ])
  })

  it('refuses a document it cannot use, naming it and the fix', () => {
    const { code, stderr } = runCli(['--routes', 'typed/routes.json', '--validate', 'typed/nothing.yaml', '--port', '0'], { cwd: root, env: { ...process.env, NO_COLOR: '1' } })
    expect(code).toBe(1)
    expect(stderr).toContain('options#/validate: the OpenAPI document typed/nothing.yaml of the validate option cannot be used: it cannot be read (ENOENT). Give validate the path of an OpenAPI 3.0 or 3.1 document (JSON or YAML), such as "openapi.yaml".')
    expect(stderr).not.toContain('    at ')
  })
})
