/**
 * `mockyard init --openapi` (docs/behaviour.md, "OpenAPI: mocks from a contract"), run as a user
 * runs it: the built CLI (`npm run build` first) in temp app folders, then `mockyard check
 * --openapi` and `mockyard` itself on what it wrote, with neither --routes nor --config (the
 * CLI finds mocks/routes.json), and real HTTP requests with `Prefer` headers.
 */
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { killClis, runCli, startCli } from '../cli/support.js'

const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url))

afterEach(killClis)

const dirs: string[] = []
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

/** A temp app folder holding a copy of the fixtures (documents with relative `$ref`s). */
function app(): string {
  const dir = mkdtempSync(join(tmpdir(), 'mockyard-init-'))
  dirs.push(dir)
  cpSync(FIXTURES, dir, { recursive: true })
  return dir
}

/** Every file under a folder, by relative path, as bytes in text. */
function filesOf(folder: string): Record<string, string> {
  const out: Record<string, string> = {}
  for (const name of readdirSync(folder, { recursive: true, withFileTypes: true })) {
    if (!name.isFile()) continue
    const path = join(name.parentPath, name.name)
    out[path.slice(folder.length + 1)] = readFileSync(path, 'latin1')
  }
  return out
}

const json = (dir: string, file: string) => JSON.parse(readFileSync(join(dir, 'mocks', file), 'utf8'))

describe('mockyard init --openapi on a 3.1 document (servers base path, named examples, schema-only bodies)', () => {
  let dir: string
  beforeAll(() => {
    dir = app()
    const { code, stderr } = runCli(['init', '--openapi', 'petstore-31.json'], { cwd: dir })
    expect(stderr).toContain('[mockyard] init: 6 operations of petstore-31.json written as 4 routes')
    expect(code).toBe(0)
  })

  it('writes one route per path under the base path, {id} as :id, in mocks/routes.json and mocks/data', () => {
    const routes = json(dir, 'routes.json')
    expect(Object.keys(routes)).toEqual(['api/v1/pets', 'api/v1/pets/:petId', 'api/v1/pets/:petId/owner', 'api/v1/health'])
    expect(Object.keys(routes['api/v1/pets'])).toEqual(['get', 'post'])
    // One answer only: the file name alone.
    expect(routes['api/v1/pets/:petId/owner'].get).toBe('api-v1-pets-petId-owner.json')
    // The lowest 2xx is the default even when written after another status; 204 has no file.
    expect(routes['api/v1/pets/:petId'].get[0]).toEqual({ file: 'api-v1-pets-petId.json' })
    expect(routes['api/v1/pets/:petId'].delete[0]).toEqual({ status: 204 })
    expect(routes['api/v1/pets'].post[0]).toEqual({ file: 'api-v1-pets-post.json', status: 201, responseHeaders: { Location: '/api/v1/pets/7' } })
  })

  it('makes bodies from the schemas: formats, enums, required fields, type lists, oneOf with a discriminator, cycles cut', () => {
    expect(json(dir, 'data/api-v1-pets-petId-owner.json')).toEqual({
      id: '3fa85f64-5717-4562-b3fc-2c963f66afa6',
      email: 'user@example.com',
      name: 'string',
      homepage: 'https://example.com',
      joined: '2024-01-01T00:00:00Z',
      code: 'AAA-0000',
      // oneOf [number, integer, string]: 0 satisfies two branches, "string" exactly one.
      score: 'string',
      // A $ref to the schema being made: the null branch of anyOf, an empty list.
      manager: null,
      friends: [],
    })
    expect(json(dir, 'data/api-v1-pets.json')).toEqual([
      // minimum 1; ["string", "null"]; the first enum value; the discriminator's mapping key; writeOnly left out.
      { id: 1, name: 'string', tag: 'string', status: 'available', kind: { kind: 'cat', meows: true }, born: '2024-01-01' },
    ])
    expect(readFileSync(join(dir, 'mocks/data/api-v1-health.txt'), 'utf8')).toBe('ok')
  })

  it('passes mockyard check --openapi, which finds mocks/routes.json by itself and says so', () => {
    const { code, stdout, stderr } = runCli(['check', '--openapi', 'petstore-31.json'], { cwd: dir })
    expect(stderr).toBe('[mockyard] no --config, no --routes and no mocks/config.js here: checking mocks/routes.json with the data folder mocks/data.\n')
    expect(stdout).toContain('[mockyard] check: no problems.')
    expect(code).toBe(0)
  })

  it('is served by mockyard from mocks/: the lowest 2xx by default, Prefer: code= and example= pick the others', async () => {
    const { url, stderr } = await startCli(['--port', '0', '--latency', '0', '--host', '127.0.0.1'], { cwd: dir })
    expect(stderr()).toContain('serving mocks/routes.json with the data folder mocks/data')
    const get = async (path: string, prefer?: string) => {
      const response = await fetch(`${url}${path}`, { headers: prefer ? { Prefer: prefer } : {} })
      const type = response.headers.get('content-type') ?? ''
      return { status: response.status, type, body: type.includes('json') ? await response.json() : await response.text() }
    }
    const cat = { id: 1, name: 'Tom', tag: 'cat', kind: { kind: 'cat', meows: true } }
    const dog = { id: 2, name: 'Rex', tag: 'dog', kind: { kind: 'dog', barks: true } }
    const gone = { code: 'gone', message: 'The pet was adopted' }
    const never = { code: 'never', message: 'There never was such a pet' }
    expect(await get('/api/v1/pets/42')).toMatchObject({ status: 200, body: cat })
    expect(await get('/api/v1/pets/42', 'code=404')).toMatchObject({ status: 404, body: gone })
    expect(await get('/api/v1/pets/42', 'example=dog')).toMatchObject({ status: 200, body: dog })
    expect(await get('/api/v1/pets/42', 'example=never')).toMatchObject({ status: 404, body: never })
    expect(await get('/api/v1/pets/42', 'code=404, example=never')).toMatchObject({ status: 404, body: never })
    expect(await get('/api/v1/pets/42', 'example=never; code=404')).toMatchObject({ status: 404, body: never })
    expect(await get('/api/v1/pets/42', 'code=404, example=dog')).toMatchObject({ status: 404, body: gone })
    expect(await get('/api/v1/pets/42', 'code=200, example=never')).toMatchObject({ status: 200, body: cat })
    expect(await get('/api/v1/pets/42', 'code=500')).toMatchObject({ status: 500, body: { code: 'string', message: 'string' } })
    // Other preferences, and tokens that only start like one, leave the default.
    expect(await get('/api/v1/pets/42', 'return=minimal')).toMatchObject({ status: 200, body: cat })
    expect(await get('/api/v1/pets/42', 'code=4040')).toMatchObject({ status: 200, body: cat })
    // `default` stands for 500, in its own media type.
    expect(await get('/api/v1/pets', 'code=500')).toMatchObject({ status: 500, type: 'application/problem+json', body: { title: 'string', status: 400 } })
    expect(await get('/api/v1/health')).toMatchObject({ status: 200, body: 'ok' })
    const created = await fetch(`${url}/api/v1/pets`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":"Tom"}' })
    expect(created.status).toBe(201)
    expect(created.headers.get('location')).toBe('/api/v1/pets/7')
    const invalid = await fetch(`${url}/api/v1/pets`, { method: 'POST', headers: { Prefer: 'code=422' }, body: '{}' })
    expect(invalid.status).toBe(422)
    expect((await fetch(`${url}/api/v1/pets/42`, { method: 'DELETE' })).status).toBe(204)
  })

  it('writes the same bytes on every run', () => {
    const again = app()
    expect(runCli(['init', '--openapi', 'petstore-31.json'], { cwd: again }).code).toBe(0)
    expect(filesOf(join(again, 'mocks'))).toEqual(filesOf(join(dir, 'mocks')))
  })

  it('refuses to overwrite routes.json without --force, saying how, and overwrites it with --force', () => {
    const routes = join(dir, 'mocks/routes.json')
    const before = readFileSync(routes, 'utf8')
    writeFileSync(routes, '{"mine": {"get": "mine.json"}}\n')
    const refused = runCli(['init', '--openapi', 'petstore-31.json'], { cwd: dir })
    expect(refused.stderr).toContain('[mockyard] init: mocks/routes.json exists, and init writes a new one rather than merging into it. Add --force to overwrite it, or write elsewhere with --out <folder>.')
    expect(refused.code).toBe(1)
    expect(readFileSync(routes, 'utf8')).toBe('{"mine": {"get": "mine.json"}}\n')
    expect(runCli(['init', '--openapi', 'petstore-31.json', '--force'], { cwd: dir }).code).toBe(0)
    expect(readFileSync(routes, 'utf8')).toBe(before)
    // No temporary file is left behind.
    expect(readdirSync(join(dir, 'mocks')).filter((name) => name.endsWith('.tmp'))).toEqual([])
  })
})

describe('mockyard init --openapi on a 3.0 YAML document with $refs across files', () => {
  let dir: string
  beforeAll(() => {
    dir = app()
    const { code, stderr } = runCli(['init', '--openapi', 'api30/openapi.yaml', '--out', 'generated'], { cwd: dir })
    expect(stderr).toContain('written as 3 routes, 7 entries and 7 data files in generated/routes.json and generated/data. Serve them with mockyard --routes generated/routes.json --data generated/data;')
    expect(code).toBe(0)
  })

  it('keeps the server variable base path, follows the $refs, and passes mockyard check', () => {
    const routes = JSON.parse(readFileSync(join(dir, 'generated/routes.json'), 'utf8'))
    expect(Object.keys(routes)).toEqual(['shop/v2/orders', 'shop/v2/orders/:orderId', 'shop/v2/payments/:paymentId'])
    const check = runCli(['check', '--routes', 'generated/routes.json', '--data', 'generated/data', '--openapi', 'api30/openapi.yaml'], { cwd: dir })
    expect(check.stdout).toContain('OpenAPI coverage: 4 of 4 operations are mocked.')
    expect(check.code).toBe(0)
  })

  it('makes bodies of nullable, allOf, exclusiveMinimum with multipleOf, patterns and an allOf discriminator, a oneOf of files with one', () => {
    const read = (name: string) => JSON.parse(readFileSync(join(dir, 'generated/data', name), 'utf8'))
    const [order] = read('shop-v2-orders.json')
    expect(order).toMatchObject({ status: 'open', total: 1, note: 'string', lines: [{ sku: 'SKU-000000', quantity: 1 }] })
    expect(order.customer).toMatchObject({ email: 'user@example.com', vip: true })
    // The example named in another file, and the media example of a response in a third.
    expect(read('shop-v2-orders-orderId.json')).toMatchObject({ status: 'paid', total: 12.5 })
    expect(read('shop-v2-orders-orderId-404.json')).toEqual({ error: 'no such order' })
    // Delivery's discriminator names the variant by its schema name.
    expect(read('shop-v2-orders-orderId-patch-202.json')).toEqual({ method: 'Shipment', eta: '2024-01-01', carrier: 'post' })
    // A oneOf of whole files with a discriminator and no mapping: the file's name.
    expect(read('shop-v2-payments-paymentId.json')).toEqual({ type: 'Card', last4: '0000' })
  })
})

describe('mockyard init --openapi on what documents hold in the wild', () => {
  it('takes a list of examples, parses JSON written as text, and writes no JSON body for XML; check passes', () => {
    const dir = app()
    const ok = (schema: object, content: object) => ({ description: 'ok', content: { [Object.keys(content)[0]!]: { schema, ...Object.values(content)[0] } } })
    const doc = {
      openapi: '3.0.3',
      info: { title: 'wild', version: '1' },
      paths: {
        '/list': { get: { responses: { 200: ok({ type: 'object' }, { 'application/json': { examples: [{ first: true }, { second: true }] } }) } } },
        '/text': { get: { responses: { 200: ok({ type: 'object' }, { 'application/json': { example: '{\n  "from": "text"\n}' } }) } } },
        '/xml': { get: { responses: { 200: ok({ type: 'object', properties: { a: { type: 'string' } } }, { 'application/xml': {} }) } } },
        // A path no route key can hold: left out, and said so, so that the file still loads.
        '/a b/c': { get: { responses: { 200: ok({ type: 'object' }, { 'application/json': {} }) } } },
      },
    }
    writeFileSync(join(dir, 'wild.json'), JSON.stringify(doc))
    const init = runCli(['init', '--openapi', 'wild.json'], { cwd: dir })
    expect(init.code).toBe(0)
    expect(init.stderr).toContain('/a b/c: no route key can hold its path (it has a space, "?" or "#")')
    const routes = json(dir, 'routes.json')
    expect(Object.keys(routes).sort()).toEqual(['list', 'text', 'xml'])
    expect(json(dir, `data/${routes.list.get}`)).toEqual({ first: true })
    expect(json(dir, `data/${routes.text.get}`)).toEqual({ from: 'text' })
    expect(routes.xml.get).toEqual({ status: 200 })
    expect(runCli(['check', '--openapi', 'wild.json'], { cwd: dir }).code).toBe(0)
  })

  it('keeps a formatted string of its format under a short maxLength, and leaves out what a strict allOf part refuses; check passes', () => {
    const dir = app()
    const body = (schema: object) => ({ get: { responses: { 200: { description: 'ok', content: { 'application/json': { schema } } } } } })
    const doc = {
      openapi: '3.0.3',
      info: { title: 'tricky', version: '1' },
      paths: {
        '/user': body({ type: 'object', required: ['email'], properties: { email: { type: 'string', format: 'email', maxLength: 10 }, site: { type: 'string', format: 'uri', maxLength: 12 } } }),
        '/strict': body({ allOf: [{ type: 'object', additionalProperties: false, properties: { a: { type: 'string' } } }, { type: 'object', properties: { b: { type: 'string' } } }] }),
      },
    }
    writeFileSync(join(dir, 'tricky.json'), JSON.stringify(doc))
    expect(runCli(['init', '--openapi', 'tricky.json'], { cwd: dir }).code).toBe(0)
    const routes = json(dir, 'routes.json')
    expect(json(dir, `data/${routes.user.get}`)).toEqual({ email: 'a@b.co', site: 'https://a.co' })
    expect(json(dir, `data/${routes.strict.get}`)).toEqual({ a: 'string' })
    const check = runCli(['check', '--openapi', 'tricky.json'], { cwd: dir })
    expect(check.stdout).toContain('[mockyard] check: no problems.')
    expect(check.code).toBe(0)
  })
})

describe('mockyard init beside a mocks/config.js', () => {
  it('says how to serve what it wrote, since mockyard alone would load the config', () => {
    const dir = app()
    mkdirSync(join(dir, 'mocks'))
    writeFileSync(join(dir, 'mocks/config.js'), 'export default { routes: "./other.json" }\n')
    const { code, stderr } = runCli(['init', '--openapi', 'petstore-31.json'], { cwd: dir })
    expect(stderr).toContain('Serve them with mockyard --routes mocks/routes.json --data mocks/data (mockyard alone loads mocks/config.js);')
    expect(code).toBe(0)
  })
})

describe('mockyard init: bad input', () => {
  it('names a document that is not OpenAPI, and one that does not exist; exit 1, nothing written', () => {
    const dir = app()
    writeFileSync(join(dir, 'swagger.json'), '{"swagger": "2.0", "paths": {}}')
    const old = runCli(['init', '--openapi', 'swagger.json'], { cwd: dir })
    expect(old.stderr).toContain('[mockyard] init: swagger.json cannot be used: Swagger 2.0 documents are not supported.')
    expect(old.code).toBe(1)
    const missing = runCli(['init', '--openapi', 'nope.yaml'], { cwd: dir })
    expect(missing.stderr).toContain('the OpenAPI document nope.yaml does not exist. Check the path given to --openapi.')
    expect(missing.code).toBe(1)
    expect(readdirSync(dir)).not.toContain('mocks')
    // A $ref to nothing: the line names the $ref and its place once, after one prefix.
    writeFileSync(join(dir, 'broken.yaml'), "openapi: 3.0.3\ninfo: { title: t, version: '1' }\npaths:\n  /a:\n    get:\n      responses:\n        '200': { $ref: '#/nope' }\n")
    const broken = runCli(['init', '--openapi', 'broken.yaml'], { cwd: dir })
    expect(broken.stderr).toBe(
      '[mockyard] init: broken.yaml cannot be used: the $ref "#/nope" at broken.yaml#/paths/~1a/get/responses/200 points to broken.yaml#/nope, which does not exist. Point the $ref at a schema the document has, or add the schema there.\n',
    )
    expect(broken.code).toBe(1)
  })

  it('names an --out it cannot write into, without a stack trace; exit 1', () => {
    const dir = app()
    writeFileSync(join(dir, 'taken'), 'a file, not a folder')
    const { code, stderr } = runCli(['init', '--openapi', 'petstore-31.json', '--out', 'taken'], { cwd: dir })
    expect(stderr).toContain('[mockyard] init: taken/data cannot be written (ENOTDIR). Write elsewhere with --out <folder>, a folder you can write to.')
    expect(stderr).not.toContain('    at ')
    expect(code).toBe(1)
  })

  it('asks for --openapi, and names a misspelt flag; exit 2', () => {
    const none = runCli(['init'], { cwd: tmpdir() })
    expect(none.stderr).toContain('mockyard init needs --openapi')
    expect(none.code).toBe(2)
    const positional = runCli(['init', 'openapi.yaml'], { cwd: tmpdir() })
    expect(positional.stderr).toContain('mockyard init takes the document with --openapi, not "openapi.yaml" alone. For example mockyard init --openapi openapi.yaml.')
    expect(positional.code).toBe(2)
    const typo = runCli(['init', '--opnapi', 'x.yaml'], { cwd: tmpdir() })
    expect(typo.stderr).toBe('[mockyard] init: unknown flag --opnapi: did you mean --openapi? Run mockyard init --help for the options.\n')
    expect(typo.code).toBe(2)
    const unknown = runCli(['init', '--frobnicate'], { cwd: tmpdir() })
    expect(unknown.stderr).toBe('[mockyard] init: unknown flag --frobnicate: init has no such flag. Run mockyard init --help for the options.\n')
  })
})
