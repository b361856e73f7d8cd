/**
 * The JSON Schema of routes files (schema/routes.json) says what the loader says: for every
 * routes file of the repository and for deliberately broken variants, the schema accepts a file
 * exactly when validateRoutes finds neither an error nor a warning in it.
 */
import { globSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Ajv } from 'ajv'
import { describe, expect, it } from 'vitest'
import { compileRoutes, createEngine, fromFetchRequest, memoryFiles, validateRoutes } from 'mockyard'
import { ENTRY_KEYS, ITEM_KEYS, ROUTE_KEYS } from '../../src/core/routes-model.js'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const require = createRequire(join(ROOT, 'package.json'))
// Through the package's own exports, as a user's editor or tool would find it.
const schema = JSON.parse(readFileSync(require.resolve('mockyard/schema/routes.json'), 'utf8')) as object

const ajv = new Ajv({ allErrors: true, allowUnionTypes: true, strictTypes: true })
// "regex" is an ECMA-262 regular expression; the loader compiles patterns without the u flag.
ajv.addFormat('regex', (text: string) => {
  try {
    new RegExp(text)
    return true
  } catch {
    return false
  }
})
const validateSchema = ajv.compile(schema)

function agree(routes: unknown) {
  const schemaValid = validateSchema(routes)
  const { errors, warnings } = validateRoutes(routes, 'routes.json')
  return { schemaValid, loaderValid: errors.length === 0 && warnings.length === 0, errors: validateSchema.errors, loader: [...errors, ...warnings] }
}

const fixtures = globSync('**/*routes*.json', { cwd: ROOT, exclude: (name: string) => ['node_modules', 'dist', '.git', '.tmp', 'schema'].includes(name) })

describe('schema/routes.json and validateRoutes agree', () => {
  it('finds the repository routes files', () => {
    expect(fixtures).toEqual(expect.arrayContaining(['mocks/routes.json', 'test/fixtures/examples/routes.json', 'test/browser/app/mocks/routes.json']))
  })

  it.each(fixtures)('%s', (file) => {
    const routes = JSON.parse(readFileSync(join(ROOT, file), 'utf8')) as unknown
    const result = agree(routes)
    expect(result.schemaValid, JSON.stringify(result.errors)).toBe(result.loaderValid)
    expect(result.loaderValid, JSON.stringify(result.loader)).toBe(true)
  })

  const valid: Array<[string, unknown]> = [
    ['a "$schema" key', { $schema: 'https://unpkg.com/mockyard/schema/routes.json', 'v1/a': { file: 'a.json' } }],
    ['every field on every level', {
      '/v1/a/:id': {
        file: 'a.json', url: 'https://x.test', status: 201, latency: 0, responseHeader: { 'X-A': 'b' }, responseHeaders: { 'x-b': 2 },
        get: 'dir/a.json', head: { status: 204 },
        post: [{
          file: './a.json', params: { a: 1, b: [1, 'x', null, true], c: { pattern: '^a', flags: 'gi' }, d: { nested: [1] }, e: null },
          headers: { 'X-Role': 'admin', 'X-N': 1, 'X-P': { pattern: 'a|b' } },
          response: [{ status: 202, repeat: 0 }, { file: 'b.json', repeat: 3, responseHeader: { Location: '/x' } }],
        }],
        put: [], delete: { params: {} }, patch: { headers: {} },
      },
      'v1/*': { status: 599 },
    }],
    ['every form of websocket step', {
      'v1/chat': {
        file: 'a.json',
        websocket: [
          { send: { type: 'welcome' } }, { send: 'hi', delay: 10 }, { send: [{ file: 'a.json' }, { data: [1] }, 'x', 2] }, { send: { file: 'dir/b.json' } },
          { on: 'bye', send: 'see you', close: 1000 }, { on: { pattern: '^a', flags: 'i' } }, { on: { type: 'ping', 'a.b[0]': [1, 'x'], c: { pattern: 'z' }, d: { deep: 1 } }, send: { id: '${message.id}' } },
          { on: {}, close: 4000 }, { drop: true }, { on: 'x', drop: true }, { close: 1011 },
        ],
      },
    }],
  ]
  const broken: Array<[string, unknown]> = [
    ['not an object', []],
    ['a route that is not an object', { 'v1/a': 'a.json' }],
    ['a key with a query', { 'v1/a?x=1': { file: 'a.json' } }],
    ['a key with a space', { 'v1/a b': { file: 'a.json' } }],
    ['an unknown route key', { 'v1/a': { file: 'a.json', fiel: 'b.json' } }],
    ['an unknown entry key', { 'v1/a': { get: [{ file: 'a.json', param: {} }] } }],
    ['an unknown sequence item key', { 'v1/a': { get: [{ response: [{ status: 200, times: 2 }] }] } }],
    ['an unknown pattern key', { 'v1/a': { get: [{ params: { a: { pattern: 'x', flag: 'i' } } }] } }],
    ['an empty file name', { 'v1/a': { file: '' } }],
    ['a file that is not a string', { 'v1/a': { file: 3 } }],
    ['an absolute file', { 'v1/a': { file: '/etc/passwd' } }],
    ['a Windows absolute file', { 'v1/a': { file: 'C:\\x.json' } }],
    ['a file above the data folder', { 'v1/a': { file: '../a.json' } }],
    ['a file that names the folder itself', { 'v1/a': { file: './' } }],
    ['a method file outside the folder', { 'v1/a': { get: '../a.json' } }],
    ['an empty url', { 'v1/a': { url: '' } }],
    ['a status below 200', { 'v1/a': { status: 100 } }],
    ['a status above 599', { 'v1/a': { status: 600 } }],
    ['a status that is text', { 'v1/a': { status: '200' } }],
    ['a fractional latency', { 'v1/a': { latency: 1.5 } }],
    ['a negative latency', { 'v1/a': { get: { latency: -1 } } }],
    ['headers that are not an object', { 'v1/a': { responseHeader: 'x' } }],
    ['a bad header name', { 'v1/a': { responseHeaders: { 'X A': 'b' } } }],
    ['a header value that is an object', { 'v1/a': { responseHeader: { 'X-A': {} } } }],
    ['a method that is a number', { 'v1/a': { get: 1 } }],
    ['an entry that is not an object', { 'v1/a': { get: ['a.json'] } }],
    ['params that are not an object', { 'v1/a': { get: [{ params: 'a=1' }] } }],
    ['an array condition holding an object', { 'v1/a': { get: [{ params: { a: [{ b: 1 }] } }] } }],
    ['a pattern that is not a string', { 'v1/a': { get: [{ params: { a: { pattern: 1 } } }] } }],
    ['an invalid pattern', { 'v1/a': { get: [{ params: { a: { pattern: '(' } } }] } }],
    ['unknown flags', { 'v1/a': { get: [{ params: { a: { pattern: 'a', flags: 'x' } } }] } }],
    ['flags that are not a string', { 'v1/a': { get: [{ headers: { a: { pattern: 'a', flags: 1 } } }] } }],
    ['header conditions that are not an object', { 'v1/a': { get: [{ headers: ['x'] }] } }],
    ['a header condition that is an object without pattern', { 'v1/a': { get: [{ headers: { 'X-A': { value: 'x' } } }] } }],
    ['a header condition that is null', { 'v1/a': { get: [{ headers: { 'X-A': null } }] } }],
    ['an empty sequence', { 'v1/a': { get: [{ response: [] }] } }],
    ['a sequence that is not an array', { 'v1/a': { get: [{ response: { status: 200 } }] } }],
    ['a sequence item that is not an object', { 'v1/a': { get: [{ response: ['a.json'] }] } }],
    ['a negative repeat', { 'v1/a': { get: [{ response: [{ repeat: -1 }] }] } }],
    ['a "$schema" key that is not a string nor a route', { $schema: 1 }],
    ['websocket that is not an array', { 'v1/a': { websocket: { send: 'x' } } }],
    ['a websocket step that is not an object', { 'v1/a': { websocket: ['x'] } }],
    ['a websocket step with an unknown key', { 'v1/a': { websocket: [{ send: 'x', sned: 'y' }] } }],
    ['a websocket step that does nothing', { 'v1/a': { websocket: [{ delay: 10 }] } }],
    ['a websocket on that is a number', { 'v1/a': { websocket: [{ on: 1, send: 'x' }] } }],
    ['a websocket on with an invalid pattern', { 'v1/a': { websocket: [{ on: { pattern: '(' } }] } }],
    ['a websocket on with an array of objects', { 'v1/a': { websocket: [{ on: { a: [{ b: 1 }] } }] } }],
    ['a websocket close code no server may send', { 'v1/a': { websocket: [{ close: 1006 }] } }],
    ['a websocket close code that is text', { 'v1/a': { websocket: [{ send: 'x', close: '1000' }] } }],
    ['a websocket drop that is false', { 'v1/a': { websocket: [{ send: 'x', drop: false }] } }],
    ['a negative websocket delay', { 'v1/a': { websocket: [{ send: 'x', delay: -1 }] } }],
    ['a websocket file outside the folder', { 'v1/a': { websocket: [{ send: { file: '../x.json' } }] } }],
    ['a websocket file in an array that is not a string', { 'v1/a': { websocket: [{ send: ['a', { file: 3 }] }] } }],
  ]

  it.each(valid)('accepts %s', (_, routes) => {
    const result = agree(routes)
    expect(result.loaderValid, JSON.stringify(result.loader)).toBe(true)
    expect(result.schemaValid, JSON.stringify(result.errors)).toBe(true)
  })

  it.each(broken)('refuses %s', (_, routes) => {
    const result = agree(routes)
    expect(result.loaderValid).toBe(false)
    expect(result.schemaValid).toBe(false)
  })

  it('is stricter than the loader on one point: a ".." segment that stays inside the folder', () => {
    const routes = { 'v1/a': { file: 'a/../b.json' } }
    expect(agree(routes)).toMatchObject({ loaderValid: true, schemaValid: false })
  })
})

describe('a "$schema" key at the top of a routes file', () => {
  it('is accepted and ignored by the loader: no problem, no route', async () => {
    const routes = { $schema: './node_modules/mockyard/schema/routes.json', 'v1/users': { file: 'users.json' } }
    expect(validateRoutes(routes, 'routes.json')).toEqual({ errors: [], warnings: [] })
    const table = compileRoutes([{ file: 'routes.json', routes: routes as never, files: memoryFiles({ 'users.json': '[]' }) }])
    expect(table.routes.map((r) => r.key)).toEqual(['v1/users'])
    const engine = createEngine(table)
    const result = await engine.handle(fromFetchRequest(new Request('http://x.test/$schema')))
    expect(result.matched).toBe(false)
  })
})

describe('the schema and the routes model know the same keys', () => {
  const definitions = (schema as { definitions: Record<string, { properties?: Record<string, unknown> }> }).definitions
  const keysOf = (name: string) => Object.keys(definitions[name]!.properties ?? {}).sort()

  // A route key is added in the model (src/core/routes-model.ts) and in schema/routes.json: this fails until both have it.
  it.each([
    ['route', ROUTE_KEYS],
    ['entry', ENTRY_KEYS],
    ['sequenceItem', ITEM_KEYS],
  ] as const)('%s', (name, keys) => {
    expect(keysOf(name)).toEqual([...keys].sort())
  })
})
