/**
 * `mockyard check`, run as a user runs it: the built CLI in a temporary folder. Every kind of
 * problem has its exact report line (text), its JSON entry and, in GitHub Actions, its annotation.
 */
import { spawnSync } from 'node:child_process'
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { API_PROJECT, CONFIG_PROJECT, writeFiles } from './project.js'

const CLI = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url))
const MOCKS = fileURLToPath(new URL('../../mocks/', import.meta.url))
let root: string

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'mockyard-check-'))
  writeFiles(root, { ...CONFIG_PROJECT, ...API_PROJECT })
})
afterAll(() => rmSync(root, { recursive: true, force: true }))

function check(args: string[], options: { cwd?: string; github?: boolean; workspace?: string } = {}) {
  const env = { ...process.env, GITHUB_ACTIONS: options.github ? 'true' : '', GITHUB_WORKSPACE: options.workspace ?? '', NO_COLOR: '1' }
  const result = spawnSync(process.execPath, [CLI, 'check', ...args], { cwd: options.cwd ?? root, encoding: 'utf8', env, timeout: 30_000 })
  return { code: result.status, stdout: result.stdout, stderr: result.stderr, lines: result.stdout.split('\n').filter(Boolean) }
}

const CONFIG_ARGS = ['--routes', 'mocks/routes.json', '--routes', 'mocks/more-routes.json', '--data', 'mocks/data']
const API_ARGS = ['--routes', 'api/routes.json', '--openapi', 'api/openapi.yaml']

/** Each problem of CONFIG_PROJECT: the text line, then the JSON entry. */
const CONFIG_PROBLEMS: Array<[string, Record<string, unknown>]> = [
  [
    'mocks/routes.json#/v1~1users/colour: unknown key "colour" in a route; it is ignored. Remove it, or use one of file, url, status, latency, responseHeader, responseHeaders, fault, stream, events, get, put, post, delete, patch, head, websocket.',
    { severity: 'error', kind: 'unknown-key', file: 'mocks/routes.json', pointer: '/v1~1users/colour', line: 5 },
  ],
  [
    'mocks/routes.json#/v1~1items~1:name: "v1/items/:name" is the same path as "v1/items/:id" (only the parameters\' names differ): "v1/items/:id", written first, answers it, and this route is never used. Move what this route answers into "v1/items/:id" (one key per path), or remove it.',
    { severity: 'error', kind: 'unreachable', file: 'mocks/routes.json', pointer: '/v1~1items~1:name', line: 53 },
  ],
  [
    'mocks/routes.json#/v1~1orders/file: the data file "orders.json" does not exist in mocks/data. Add the file (requests for it answer 404 until then), or fix the name.',
    { severity: 'error', kind: 'missing-file', file: 'mocks/routes.json', pointer: '/v1~1orders/file', line: 8 },
  ],
  [
    'mocks/data/broken.json#: the data file "broken.json" is not valid JSON (line 3, column 3: Expected double-quoted property name); it is served as written. Fix the JSON in the file if clients should parse it.',
    { severity: 'error', kind: 'invalid-json', file: 'mocks/data/broken.json', pointer: '', line: 3, source: 'mocks/routes.json#/v1~1broken/file' },
  ],
  [
    'mocks/routes.json#/v1~1claims/get/0: get[0] is never chosen: get[1] has the same conditions and wins ties by coming later. Remove one of them, or make their params or headers differ.',
    { severity: 'error', kind: 'unreachable', file: 'mocks/routes.json', pointer: '/v1~1claims/get/0', line: 15 },
  ],
  [
    'mocks/routes.json#/v1~1jobs/get/0: get[0] sets the default answer of GET, which is never chosen: get[1] has no conditions and wins ties by coming later. Remove get[0], or give get[1] params or headers.',
    { severity: 'error', kind: 'unreachable', file: 'mocks/routes.json', pointer: '/v1~1jobs/get/0', line: 31 },
  ],
  [
    'mocks/routes.json#/v1~1plain/get/0/file: "file" of get[0] is never used: get[1], a later entry without conditions, sets it again. Remove one of them, or give get[0] params or headers.',
    { severity: 'error', kind: 'unreachable', file: 'mocks/routes.json', pointer: '/v1~1plain/get/0/file', line: 43 },
  ],
  [
    'mocks/routes.json#/v1~1help/file: the file "a.json" is never served: "url" is set too and the redirect wins. Remove "file", or remove "url" to serve the file.',
    { severity: 'error', kind: 'ignored', file: 'mocks/routes.json', pointer: '/v1~1help/file', line: 58 },
  ],
  [
    'mocks/routes.json#/v1~1gone/delete/file: the file "a.json" is never served: status 204 answers with an empty body. Remove "file", or use a status that has a body, such as 200.',
    { severity: 'error', kind: 'ignored', file: 'mocks/routes.json', pointer: '/v1~1gone/delete/file', line: 63 },
  ],
  [
    'mocks/more-routes.json#/v1~1more/status: status must be a whole number, got "200". Write status as a number, for example 200.',
    { severity: 'error', kind: 'config', file: 'mocks/more-routes.json', pointer: '/v1~1more/status', line: 3 },
  ],
  [
    'mocks/more-routes.json#/v1~1more/get/0/file: the data file "missing.json" does not exist in mocks/data. Add the file (requests for it answer 404 until then), or fix the name.',
    { severity: 'error', kind: 'missing-file', file: 'mocks/more-routes.json', pointer: '/v1~1more/get/0/file', line: 7 },
  ],
]

const schemaFix = 'Update the data file to what the API answers now, or the document if it is wrong.'
/** Each problem of API_PROJECT against api/openapi.yaml. */
const API_PROBLEMS: Array<[string, Record<string, unknown>]> = [
  [
    `api/data/users.json#/1: must NOT have additional properties ("admin") (schema api/schemas.yaml#/User/additionalProperties, response 200 of GET /users). ${schemaFix}`,
    { severity: 'error', kind: 'schema', file: 'api/data/users.json', pointer: '/1', line: 6, schema: 'api/schemas.yaml#/User/additionalProperties', source: 'api/routes.json#/api~1v2~1users/get/0/file' },
  ],
  [
    `api/data/users.json#/1/id: must be integer (schema api/schemas.yaml#/User/properties/id/type, response 200 of GET /users). ${schemaFix}`,
    { severity: 'error', kind: 'schema', file: 'api/data/users.json', pointer: '/1/id', line: 7, schema: 'api/schemas.yaml#/User/properties/id/type', source: 'api/routes.json#/api~1v2~1users/get/0/file' },
  ],
  [
    `api/data/users.json#/1/email: must match format "email" (schema api/schemas.yaml#/User/properties/email/format, response 200 of GET /users). ${schemaFix}`,
    { severity: 'error', kind: 'schema', file: 'api/data/users.json', pointer: '/1/email', line: 8, schema: 'api/schemas.yaml#/User/properties/email/format', source: 'api/routes.json#/api~1v2~1users/get/0/file' },
  ],
  [
    'api/routes.json#/api~1v2~1users/get/1/params/page: GET /users has no query parameter "page" (it declares role), so this condition is never met. Use a declared parameter, or declare it in the document if the API has it.',
    { severity: 'error', kind: 'unknown-param', file: 'api/routes.json', pointer: '/api~1v2~1users/get/1/params/page', line: 11 },
  ],
  [
    'api/routes.json#/api~1v2~1users~1:id/put: PUT /users/{id} is not an operation of api/openapi.yaml (it has GET, DELETE). Add the operation to the document if the API has it, or remove "put" from the route.',
    { severity: 'error', kind: 'no-operation', file: 'api/routes.json', pointer: '/api~1v2~1users~1:id/put', line: 21 },
  ],
  [
    `api/data/user.json#: must have required property 'email' (schema api/schemas.yaml#/User/required, response 200 of GET /users/{id}). ${schemaFix}`,
    { severity: 'error', kind: 'schema', file: 'api/data/user.json', pointer: '', line: 1, schema: 'api/schemas.yaml#/User/required', source: 'api/routes.json#/api~1v2~1users~1:id/get' },
  ],
  [
    'api/routes.json#/api~1v2~1users~142~1/get/status: GET /users/{id} declares no response for status 201 (it declares 200, 404). Declare the status in the document if the API answers it, or change the status in the routes file.',
    { severity: 'error', kind: 'status', file: 'api/routes.json', pointer: '/api~1v2~1users~142~1/get/status', line: 26 },
  ],
  [
    'api/routes.json#/api~1v2~1orders/post/0/file: the data file "order.xml" is served as application/xml, which POST /orders does not declare for status 201 (it declares application/json). Serve a file of a declared type (the extension decides it, or a Content-Type responseHeader), or declare the type in the document.',
    { severity: 'error', kind: 'content-type', file: 'api/routes.json', pointer: '/api~1v2~1orders/post/0/file', line: 32 },
  ],
  [
    'api/routes.json#/api~1v2~1orders/post/0/params/lines[0].colour: POST /orders has no request body field "lines[0].colour" nor query parameter of that name, so this condition is never met. Use a field of the request body schema, or declare it in the document if the API has it.',
    { severity: 'error', kind: 'unknown-param', file: 'api/routes.json', pointer: '/api~1v2~1orders/post/0/params/lines[0].colour', line: 36 },
  ],
  [
    'api/routes.json#/api~1v2~1report/file: the data file "report.txt" is served as text/plain, which GET /report.pdf does not declare for status 200 (it declares application/pdf). Serve a file of a declared type (the extension decides it, or a Content-Type responseHeader), or declare the type in the document.',
    { severity: 'error', kind: 'content-type', file: 'api/routes.json', pointer: '/api~1v2~1report/file', line: 42 },
  ],
  [
    `api/routes.json#/api~1v2~1carts: no path of api/openapi.yaml matches the route "api/v2/carts" (the servers' base path: /api/v2). Add the path to the OpenAPI document if the API has it, or remove or fix the route.`,
    { severity: 'error', kind: 'no-operation', file: 'api/routes.json', pointer: '/api~1v2~1carts', line: 44 },
  ],
]

describe('mockyard check: the configuration', () => {
  it('reports every problem of every routes file at once, one line each, and exits 1', () => {
    const { code, lines } = check(CONFIG_ARGS)
    expect(lines).toEqual([...CONFIG_PROBLEMS.map(([line]) => line), '[mockyard] check: 11 problems.'])
    expect(code).toBe(1)
  })

  it('--format json prints one list with the same problems', () => {
    const { code, stdout } = check([...CONFIG_ARGS, '--format', 'json'])
    const entries = JSON.parse(stdout) as Array<Record<string, unknown>>
    expect(entries).toHaveLength(CONFIG_PROBLEMS.length)
    entries.forEach((entry, i) => {
      const [line, expected] = CONFIG_PROBLEMS[i]!
      expect(entry).toMatchObject(expected)
      expect(`${entry.file}#${entry.pointer}: ${entry.message}. ${entry.fix}`).toBe(line)
    })
    expect(code).toBe(1)
  })

  it('in GitHub Actions, prints an ::error annotation with file and line after each problem', () => {
    const { lines } = check(CONFIG_ARGS, { github: true })
    expect(lines[0]).toBe(CONFIG_PROBLEMS[0]![0])
    expect(lines[1]).toBe(
      '::error file=mocks/routes.json,line=5,title=mockyard check%3A unknown-key::#/v1~1users/colour unknown key "colour" in a route; it is ignored. Remove it, or use one of file, url, status, latency, responseHeader, responseHeaders, fault, stream, events, get, put, post, delete, patch, head, websocket.',
    )
    expect(lines[7]).toBe(
      '::error file=mocks/data/broken.json,line=3,title=mockyard check%3A invalid-json::the data file "broken.json" is not valid JSON (line 3, column 3: Expected double-quoted property name); it is served as written. Fix the JSON in the file if clients should parse it.',
    )
    expect(lines.filter((l) => l.startsWith('::error '))).toHaveLength(CONFIG_PROBLEMS.length)
  })

  it('names annotated files from the repository root (GITHUB_WORKSPACE) when run in a subfolder', () => {
    const { lines } = check(['--routes', 'routes.json', '--routes', 'more-routes.json', '--data', 'data'], { cwd: join(root, 'mocks'), github: true, workspace: root })
    expect(lines[0]).toBe(CONFIG_PROBLEMS[0]![0].replace(/^mocks\//, ''))
    expect(lines[1]).toMatch(/^::error file=mocks\/routes\.json,line=5,title=/)
  })

  it('compares conditions as the scoring does, and reports only entries that can never be chosen', () => {
    writeFiles(root, {
      'same/routes.json': {
        'v1/a': { get: [{ file: 'a.json', headers: { 'X-Role': 'admin' } }, { file: 'a.json', headers: { 'x-role': 'admin' } }] },
        'v1/b': { get: [{ file: 'a.json', params: { page: 2 } }, { file: 'a.json', params: { page: '2' } }] },
        'v1/c': { get: [{ file: 'a.json', params: { tag: ['x', 'y'] } }, { file: 'a.json', params: { tag: ['y', 'x'] } }] },
        'v1/d': { get: [{ file: 'a.json', params: { q: { pattern: '^a' } } }, { file: 'a.json', params: { q: { pattern: '^a', flags: 'gi' } } }] },
        'v1/e': { get: [{ file: 'a.json', params: { a: 1 } }, { file: 'a.json', params: { a: 1, b: 2 } }, { file: 'a.json', params: { a: 2 } }] },
        'v1/f': { get: [{ file: 'a.json', response: [{ status: 202 }] }, { file: 'a.json', params: { a: 1 } }] },
        'v1/Users/:id': { file: 'a.json' },
        '/v1/users/:id/': { get: 'a.json' },
      },
      'same/data/a.json': {},
    })
    const entries = JSON.parse(check(['--routes', 'same/routes.json', '--format', 'json']).stdout) as Array<{ kind: string; pointer: string }>
    expect(entries.map((e) => [e.kind, e.pointer])).toEqual([
      ['unreachable', '/v1~1a/get/0'],
      ['unreachable', '/v1~1b/get/0'],
      ['unreachable', '/v1~1c/get/0'],
      ['unreachable', '/v1~1d/get/0'],
    ])
  })

  it('exits 0 and says so when there is nothing to report; a "$schema" key is fine', () => {
    writeFiles(root, { 'clean/routes.json': { $schema: '../node_modules/mockyard/schema/routes.json', 'v1/a': { file: 'a.json' } }, 'clean/data/a.json': [] })
    const { code, stdout } = check(['--routes', 'clean/routes.json'])
    expect(stdout).toBe('[mockyard] check: no problems.\n')
    expect(code).toBe(0)
    expect(JSON.parse(check(['--routes', 'clean/routes.json', '--format', 'json']).stdout)).toEqual([])
  })

  it('reads a config file as every surface does, and reports its problems with the routes', () => {
    writeFiles(root, { 'cfg/config.json': { routes: 'routes.json', latency: 'slow' }, 'cfg/routes.json': { 'v1/a': { file: 'a.json' } } })
    const { code, lines } = check(['--config', 'cfg/config.json'])
    expect(lines).toEqual([
      'cfg/config.json#/latency: latency must be a whole number from 0 to 9007199254740991, got "slow". Set latency to a number such as 250.',
      'cfg/routes.json#/v1~1a/file: the data file "a.json" does not exist in cfg. Add the file (requests for it answer 404 until then), or fix the name.',
      '[mockyard] check: 2 problems.',
    ])
    expect(code).toBe(1)
  })

  it('exits 2 on bad usage', () => {
    const unknown = check(['--frobnicate'])
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toBe('[mockyard] check: unknown flag --frobnicate: check has no such flag. Run mockyard check --help for the options.\n')
    const format = check(['--format', 'xml'])
    expect(format.code).toBe(2)
    expect(format.stderr).toBe('[mockyard] check: --format takes text or json, got "xml". For example --format json.\n')
    expect(check(['--data', 'mocks/data']).code).toBe(2)
    expect(check(['stray']).code).toBe(2)
    expect(check(['--help']).stdout).toContain('Usage: mockyard check')
  })

  it('without --config or --routes, and no mocks here, exits 2 saying so: the bundled example mocks are the server\'s fallback, not something to check', () => {
    const empty = mkdtempSync(join(tmpdir(), 'mockyard-check-empty-'))
    try {
      const { code, stdout, stderr } = check([], { cwd: empty })
      expect(stderr).toBe(`[mockyard] check: no mocks/config.js (.mjs, .json) or mocks/routes.json in ${empty}, and no --config or --routes. Run it from your project's folder, or name the mocks with --config <file> or --routes <file>.\n`)
      expect(stdout).toBe('')
      expect(code).toBe(2)
    } finally {
      rmSync(empty, { recursive: true, force: true })
    }
  })
})

describe('mockyard check --openapi', () => {
  it('reports routes, statuses, content types, data and params that disagree with the document, and the coverage', () => {
    const { code, lines } = check(API_ARGS)
    expect(lines).toEqual([
      ...API_PROBLEMS.map(([line]) => line),
      'OpenAPI coverage: 5 of 6 operations are mocked.',
      '  not mocked: GET /health',
      '[mockyard] check: 11 problems.',
    ])
    expect(code).toBe(1)
  })

  it('--format json lists the problems, the operations not mocked and the coverage', () => {
    const entries = JSON.parse(check([...API_ARGS, '--format', 'json']).stdout) as Array<Record<string, unknown>>
    entries.slice(0, API_PROBLEMS.length).forEach((entry, i) => {
      const [line, expected] = API_PROBLEMS[i]!
      expect(entry).toMatchObject(expected)
      expect(`${entry.file}#${entry.pointer}: ${entry.message}. ${entry.fix}`).toBe(line)
    })
    expect(entries.slice(API_PROBLEMS.length)).toEqual([
      { severity: 'info', kind: 'not-mocked', file: 'api/openapi.yaml', pointer: '/paths/~1health/get', line: 58, message: 'GET /health (health) is not mocked', fix: 'Add a route for it if your tests need it.', operation: 'GET /health' },
      { severity: 'info', kind: 'coverage', file: 'api/openapi.yaml', pointer: '/paths', line: 7, message: '5 of 6 operations of api/openapi.yaml are mocked', fix: 'The operations not mocked are listed above.', coverage: { operations: 6, mocked: 5, handlers: 0 } },
    ])
  })

  it('annotates schema problems at the line of the data file', () => {
    const { lines } = check(API_ARGS, { github: true })
    expect(lines).toContain(
      '::error file=api/data/users.json,line=7,title=mockyard check%3A schema::#/1/id must be integer (schema api/schemas.yaml#/User/properties/id/type, response 200 of GET /users). Update the data file to what the API answers now, or the document if it is wrong.',
    )
  })

  it('reads OpenAPI 3.0 in JSON: nullable, a base path given by a relative server URL, a format suffix in the path', () => {
    writeFiles(root, {
      'v30/openapi.json': {
        openapi: '3.0.3',
        info: { title: 't', version: '1' },
        servers: [{ url: '/v1' }],
        paths: {
          '/users.json': {
            get: {
              responses: {
                200: {
                  description: 'ok',
                  content: { 'application/json': { schema: { type: 'array', items: { $ref: '#/components/schemas/User' } } } },
                },
              },
            },
          },
        },
        components: {
          schemas: { User: { type: 'object', properties: { name: { type: 'string', nullable: true }, age: { type: 'integer', minimum: 0, exclusiveMinimum: true } } } },
        },
      },
      'v30/routes.json': { 'v1/users/': { file: 'users.json' } },
      'v30/data/users.json': [{ name: null, age: 1 }, { name: 'b', age: 0 }],
    })
    const { code, lines } = check(['--routes', 'v30/routes.json', '--openapi', 'v30/openapi.json'])
    expect(lines).toEqual([
      'v30/data/users.json#/1/age: must be > 0 (schema v30/openapi.json#/components/schemas/User/properties/age/exclusiveMinimum, response 200 of GET /users.json). Update the data file to what the API answers now, or the document if it is wrong.',
      'OpenAPI coverage: 1 of 1 operations are mocked.',
      '[mockyard] check: 1 problem.',
    ])
    expect(code).toBe(1)
  })

  it('reads OpenAPI 3.1: a type list reads "string or null"; a params condition on a path parameter says params never read the path', () => {
    writeFiles(root, {
      'v31/openapi.json': {
        openapi: '3.1.0',
        info: { title: 't', version: '1' },
        servers: [{ url: 'http://localhost:8080/api/v3' }],
        paths: {
          '/pet/{petId}': {
            parameters: [{ name: 'petId', in: 'path', required: true, schema: { type: 'integer' } }],
            get: {
              responses: {
                200: { description: 'ok', content: { 'application/json': { schema: { $ref: 'schemas.json#/Pet' } } } },
                404: { description: 'none', content: { 'application/json': { schema: { type: 'object' } } } },
              },
            },
          },
        },
      },
      'v31/schemas.json': { Pet: { type: 'object', properties: { nickname: { type: ['string', 'null'] } } } },
      'v31/routes.json': { 'api/v3/pet/:petId': { get: [{ file: 'pet.json' }, { file: 'none.json', status: 404, params: { petId: '0' } }] } },
      'v31/data/pet.json': { nickname: 7 },
      'v31/data/none.json': {},
    })
    const { code, lines } = check(['--routes', 'v31/routes.json', '--openapi', 'v31/openapi.json'])
    expect(lines).toEqual([
      'v31/data/pet.json#/nickname: must be string or null (schema v31/schemas.json#/Pet/properties/nickname/type, response 200 of GET /pet/{petId}). Update the data file to what the API answers now, or the document if it is wrong.',
      'v31/routes.json#/api~1v3~1pet~1:petId/get/1/params/petId: "petId" is a path parameter of GET /pet/{petId}, and params conditions read the query string, never the path, so this condition is never met. Give the value its own route instead (a key with the value in place of :petId), or remove the condition.',
      'OpenAPI coverage: 1 of 1 operations are mocked.',
      '[mockyard] check: 2 problems.',
    ])
    expect(code).toBe(1)
  })

  it('a route that fits under a base path the document lacks says which base path, and how to declare it', () => {
    writeFiles(root, {
      'nobase/openapi.yaml': 'openapi: 3.0.3\ninfo: { title: t, version: "1" }\npaths:\n  /pet/{petId}:\n    get:\n      responses:\n        "200": { description: ok }\n  /{anything}:\n    get:\n      responses:\n        "200": { description: ok }\n',
      'nobase/routes.json': { 'v2/pet/:petId': { get: { status: 200 } }, 'v2/store/order': { get: { status: 200 } } },
    })
    const { code, lines } = check(['--routes', 'nobase/routes.json', '--openapi', 'nobase/openapi.yaml'])
    expect(lines.slice(0, 2)).toEqual([
      'nobase/routes.json#/v2~1pet~1:petId: no path of nobase/openapi.yaml matches the route "v2/pet/:petId"; it would match /pet/{petId} under the base path /v2. Add a server with that base path to the document (servers: [{ url: "/v2" }]) if the API is served there, or fix the route.',
      // A template alone (/{anything}) fits any segment: no hint from it.
      'nobase/routes.json#/v2~1store~1order: no path of nobase/openapi.yaml matches the route "v2/store/order". Add the path to the OpenAPI document if the API has it, or remove or fix the route.',
    ])
    expect(code).toBe(1)
  })

  it('reports a document it cannot use', () => {
    writeFiles(root, { 'bad/swagger.yaml': 'swagger: "2.0"\npaths: {}\n' })
    const { code, lines } = check(['--routes', 'clean/routes.json', '--openapi', 'bad/swagger.yaml'])
    expect(lines).toEqual([
      'bad/swagger.yaml#: the OpenAPI document cannot be used: Swagger 2.0 documents are not supported. Convert it to OpenAPI 3 (swagger2openapi does), then use that.',
      '[mockyard] check: 1 problem.',
    ])
    expect(code).toBe(1)
    const missing = check(['--routes', 'clean/routes.json', '--openapi', 'bad/nothing.yaml', '--format', 'json'])
    expect(JSON.parse(missing.stdout)).toMatchObject([{ kind: 'openapi', file: 'bad/nothing.yaml', pointer: '' }])
    expect(missing.code).toBe(1)
    // A missing document reads like a missing routes file, not like a parser's stack.
    expect(check(['--routes', 'clean/routes.json', '--openapi', 'bad/nothing.yaml']).lines).toEqual([
      'bad/nothing.yaml#: the OpenAPI document cannot be read (ENOENT). Check the path given to --openapi.',
      '[mockyard] check: 1 problem.',
    ])
  })
})

describe('the bundled mocks and their OpenAPI document', () => {
  it('pass: every route and data file agrees with mocks/openapi.yaml, and the notifications handlers mock the rest', () => {
    const { code, lines } = check(['--config', join(MOCKS, 'config.js'), '--openapi', join(MOCKS, 'openapi.yaml')], { cwd: MOCKS })
    expect(lines).toEqual(['OpenAPI coverage: 17 of 17 operations are mocked (4 by msw handlers of the config).', '[mockyard] check: no problems.'])
    expect(code).toBe(0)
  })

  it('without the config (routes only), the notifications operations are listed as not mocked', () => {
    const { code, lines } = check(['--routes', join(MOCKS, 'routes.json'), '--openapi', join(MOCKS, 'openapi.yaml')], { cwd: MOCKS })
    expect(lines).toEqual([
      'OpenAPI coverage: 13 of 17 operations are mocked.',
      '  not mocked: GET /api/v1/notifications',
      '  not mocked: DELETE /api/v1/notifications',
      '  not mocked: PUT /api/v1/notifications/{id}',
      '  not mocked: PATCH /api/v1/notifications/{id}',
      '[mockyard] check: no problems.',
    ])
    expect(code).toBe(0)
  })

  it('a broken copy fails with exactly its problems: a wrong type in a data file, a route the document lacks', () => {
    const copy = join(root, 'bundled')
    cpSync(MOCKS, copy, { recursive: true })
    writeFileSync(join(copy, 'data', 'users.json'), '{"file": 42}\n')
    const routes = JSON.parse(readFileSync(join(copy, 'routes.json'), 'utf8')) as Record<string, unknown>
    writeFileSync(join(copy, 'routes.json'), JSON.stringify({ ...routes, 'v1/invoices': { file: 'users.json' } }, null, 2))
    const { code, lines } = check(['--routes', 'routes.json', '--openapi', 'openapi.yaml'], { cwd: copy })
    expect(lines.filter((l) => !l.startsWith('  not mocked') && !l.startsWith('OpenAPI coverage'))).toEqual([
      'data/users.json#/file: must be string (schema openapi.yaml#/components/schemas/Echo/properties/file/type, response 200 of GET /v1/users). Update the data file to what the API answers now, or the document if it is wrong.',
      'routes.json#/v1~1invoices: no path of openapi.yaml matches the route "v1/invoices" (the servers\' base path: /). Add the path to the OpenAPI document if the API has it, or remove or fix the route.',
      '[mockyard] check: 2 problems.',
    ])
    expect(code).toBe(1)
  })
})

describe("the check guide's worked example (docs/check.md)", () => {
  it('prints what the guide shows', () => {
    const section = readFileSync(fileURLToPath(new URL('../../docs/check.md', import.meta.url)), 'utf8')
    const blocks = [...section.matchAll(/```(\w*)\n([\s\S]*?)```/g)].map((m) => m[2]!)
    const dir = join(root, 'readme')
    writeFiles(dir, {
      'mocks/routes.json': blocks[1]!,
      'mocks/data/users.json': '[{ "id": 1, "email": "ada@example.com" }, { "id": "2", "email": "bob" }]',
      'mocks/data/user.json': '{ "id": 1, "email": "ada@example.com" }',
      'mocks/data/claims-open.json': '[]',
      'mocks/data/claims-closed.json': '[]',
      'mocks/data/help.json': '{}',
      'api/openapi.yaml': `openapi: 3.1.0
info: { title: Example API, version: '1' }
servers: [{ url: https://api.example.com/v1 }]
paths:
  /users:
    get:
      responses:
        '200': { description: Users., content: { application/json: { schema: { type: array, items: { $ref: 'schemas.yaml#/User' } } } } }
  /users/{id}:
    get:
      responses:
        '200': { description: A user., content: { application/json: { schema: { $ref: 'schemas.yaml#/User' } } } }
    delete:
      responses:
        '204': { description: Deleted. }
  /claims:
    get:
      parameters: [{ name: status, in: query, schema: { type: string } }]
      responses:
        '200': { description: Claims., content: { application/json: { schema: { type: array } } } }
`,
      'api/schemas.yaml': 'User:\n  type: object\n  required: [id, email]\n  properties:\n    id: { type: integer }\n    email: { type: string, format: email }\n',
    })
    expect(check(['--routes', 'mocks/routes.json'], { cwd: dir }).stdout).toBe(blocks[2])
    expect(check(['--routes', 'mocks/routes.json', '--openapi', 'api/openapi.yaml'], { cwd: dir }).stdout).toBe(blocks[2]!.split('\n').slice(0, 2).join('\n') + '\n' + blocks[3])
  })
})
