/**
 * The routes and bodies `mockyard init --openapi` makes (src/init/routes-from-openapi.ts,
 * src/init/sample-schema.ts) from documents as they are written in the wild, read as the command
 * reads them (initFromOpenApi, as the CLI calls it): 3.0's `nullable` without `type`, files that `$ref` back into the root
 * file, protocol-relative and operation-level `servers`, Google-style custom methods
 * (`/operations/{id}:cancel`), required `writeOnly` properties, non-ASCII path literals; and the
 * route keys it writes, looked up by the route table as requests reach it.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { compileRoutes } from '../../src/core/compile-routes.js'
import { memoryFiles } from '../../src/core/memory-files.js'
import { checkOpenApi, loadOpenApi } from '../../src/check/check-openapi.js'
import { initFromOpenApi } from '../../src/init/init-openapi.js'

let root: string
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'mockyard-init-routes-'))
})
afterAll(() => rmSync(root, { recursive: true, force: true }))

let folders = 0
/** Writes the files under a fresh folder, runs init on its `openapi.yaml` there, and returns what it wrote and left out. */
async function mocksOf(files: Record<string, string>) {
  const dir = join(root, `p${++folders}`)
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true })
    writeFileSync(join(dir, name), content)
  }
  const { skipped, operations } = await initFromOpenApi({ openapi: 'openapi.yaml', cwd: dir })
  const routes = JSON.parse(readFileSync(join(dir, 'mocks/routes.json'), 'utf8')) as Record<string, Record<string, unknown>>
  const body = (name: unknown) => JSON.parse(readFileSync(join(dir, 'mocks/data', String(name)), 'utf8'))
  return { routes, files: readdirSync(join(dir, 'mocks/data')), skipped, operations, body, dir }
}

const HEAD = "openapi: 3.0.3\ninfo: { title: t, version: '1' }\n"
const ok = (example: string) => `responses: { '200': { description: ok, content: { application/json: { example: ${example} } } } }`

describe('documents init reads', () => {
  it("3.0's nullable without a type: the body is made from the schema it wraps, and a oneOf holding one is validated to pick its branch", async () => {
    const { routes, body } = await mocksOf({
      'openapi.yaml': `${HEAD}paths:
  /things/{id}:
    get:
      responses:
        '200':
          description: ok
          content:
            application/json:
              schema:
                type: object
                properties:
                  owner: { nullable: true, allOf: [{ $ref: '#/components/schemas/Owner' }] }
  /either:
    get:
      responses:
        '200':
          description: ok
          content:
            application/json:
              schema:
                oneOf:
                  - { type: object, required: [id, owner], properties: { id: { type: integer }, owner: { type: integer } } }
                  - { type: object, required: [owner], properties: { owner: { nullable: true, allOf: [{ $ref: '#/components/schemas/Owner' }] } } }
components:
  schemas:
    Owner: { type: object, properties: { name: { type: string } } }
`,
    })
    expect(body(routes['things/:id']!.get)).toEqual({ owner: { name: 'string' } })
    // The first branch's sample fits that branch only (an owner 0 is neither an Owner nor null).
    expect(body(routes.either!.get)).toEqual({ id: 0, owner: 0 })
  })

  it('a file that $refs back into the root file: the body is made from the root schema, not {}', async () => {
    const { routes, body } = await mocksOf({
      'openapi.yaml': `${HEAD}paths:
  /pets/{petId}:
    $ref: './paths/pet.yaml'
components:
  schemas:
    Pet: { type: object, required: [name], properties: { name: { type: string } } }
`,
      'paths/pet.yaml': "get:\n  responses:\n    '200':\n      description: ok\n      content:\n        application/json:\n          schema: { $ref: '../openapi.yaml#/components/schemas/Pet' }\n",
    })
    expect(body(routes['pets/:petId']!.get)).toEqual({ name: 'string' })
  })

  it('a required writeOnly property is left out of an answer, as every writeOnly one is', async () => {
    const { routes, body } = await mocksOf({
      'openapi.yaml': `${HEAD}paths:
  /users/{id}:
    get:
      responses:
        '200': { description: ok, content: { application/json: { schema: { $ref: '#/components/schemas/User' } } } }
components:
  schemas:
    Secret: { type: string, writeOnly: true }
    User:
      type: object
      required: [id, name, password, pin]
      properties:
        id: { type: integer, readOnly: true }
        name: { type: string }
        password: { type: string, writeOnly: true }
        pin: { allOf: [{ $ref: '#/components/schemas/Secret' }] }
`,
    })
    expect(body(routes['users/:id']!.get)).toEqual({ id: 0, name: 'string' })
  })
})

describe('bodies init makes pass its own check', () => {
  /** Init on the document, then check --openapi on what it wrote: the bodies and the problems. */
  async function madeAndChecked(doc: string) {
    const made = await mocksOf({ 'openapi.yaml': doc })
    const { entries } = await checkOpenApi(await loadOpenApi(join(made.dir, 'openapi.yaml'), (file) => file.slice(made.dir.length + 1)), [{ file: 'routes.json', routes: made.routes, data: join(made.dir, 'mocks/data') }])
    const bodies = Object.fromEntries(Object.entries(made.routes).map(([key, route]) => [key, made.body(route.get)]))
    return { bodies, problems: entries.map((entry) => `${entry.file}#${entry.pointer}: ${entry.message}`) }
  }
  const get = (path: string, schema: string) => `  ${path}:\n    get:\n      responses: { '200': { description: ok, content: { application/json: { schema: ${schema} } } } }\n`

  it('uniqueItems, keywords beside $ref, oneOf of required lists or of one shape, minProperties, patternProperties, a decimal multipleOf, an optional recursive list', async () => {
    const { bodies, problems } = await madeAndChecked(`openapi: 3.1.0
info: { title: t, version: '1' }
paths:
${get('/scopes', '{ type: array, items: { type: string }, minItems: 3, uniqueItems: true }')}${get('/levels', '{ type: array, items: { enum: [low, high] }, minItems: 2, uniqueItems: true }')}${get('/ref-siblings', "{ $ref: '#/components/schemas/Base', required: [extra], properties: { extra: { type: integer, minimum: 3 } } }")}${get('/contact', '{ type: object, properties: { email: { type: string }, phone: { type: string } }, oneOf: [{ required: [email] }, { required: [phone] }] }')}${get('/shapes', '{ oneOf: [{ type: object, properties: { radius: { type: number } } }, { type: object, properties: { side: { type: number } } }] }')}${get('/labels', '{ type: object, minProperties: 1 }')}${get('/price', '{ type: number, minimum: 0.3, multipleOf: 0.1 }')}${get('/headers-map', "{ type: object, required: [x-count], patternProperties: { '^x-': { type: integer } }, additionalProperties: false }")}${get('/tree', "{ $ref: '#/components/schemas/Node' }")}components:
  schemas:
    Base: { type: object, required: [id], properties: { id: { type: string } } }
    Node: { type: object, required: [name], properties: { name: { type: string }, children: { type: array, minItems: 1, items: { $ref: '#/components/schemas/Node' } } } }
`)
    expect(bodies).toEqual({
      scopes: ['string', 'string2', 'string3'],
      levels: ['low', 'high'],
      'ref-siblings': { id: 'string', extra: 3 },
      contact: { email: 'string' },
      shapes: { radius: 0, side: 'string' },
      labels: { additionalProp1: 'string' },
      price: 0.4,
      'headers-map': { 'x-count': 0 },
      tree: { name: 'string' },
    })
    expect(problems).toEqual([])
  })

  it("3.1 $refs relative to a schema's $id (#/$defs/Money) and to an $anchor are followed", async () => {
    const { bodies, problems } = await madeAndChecked(`openapi: 3.1.0
info: { title: t, version: '1' }
paths:
${get('/defs', "{ $ref: '#/components/schemas/Order' }")}${get('/anchor', "{ type: object, required: [money], properties: { money: { $ref: '#money' } } }")}components:
  schemas:
    Order:
      $id: 'https://example.com/schemas/order'
      type: object
      required: [id, total]
      properties: { id: { type: string }, total: { $ref: '#/$defs/Money' } }
      $defs:
        Money: { type: object, required: [amount, currency], properties: { amount: { type: integer }, currency: { type: string, pattern: '^[A-Z]{3}$' } } }
    Money2: { $anchor: money, type: object, required: [amount], properties: { amount: { type: integer, minimum: 1 } } }
`)
    expect(bodies).toEqual({ defs: { id: 'string', total: { amount: 0, currency: 'AAA' } }, anchor: { money: { amount: 1 } } })
    expect(problems).toEqual([])
  })
})

describe('bodies of bytes', () => {
  it('a schema of bytes (an image, a PDF, octet-stream) gives no body rather than its placeholder text; text still gets one', async () => {
    const { routes, files } = await mocksOf({
      'openapi.yaml': `${HEAD}paths:
  /avatar:
    get:
      responses:
        '200': { description: ok, content: { image/png: { schema: { type: string, format: binary } } } }
  /report:
    get:
      responses:
        '200': { description: ok, content: { application/pdf: { schema: { type: string, format: binary } }, application/octet-stream: { schema: { type: string } } } }
  /note:
    get:
      responses:
        '200': { description: ok, content: { text/plain: { schema: { type: string } } } }
`,
    })
    expect(routes.avatar!.get).toEqual({ status: 200 })
    expect(routes.report!.get).toEqual({ status: 200 })
    expect(files.filter((name) => !name.startsWith('note'))).toEqual([])
    expect(routes.note!.get).toMatch(/\.txt$/)
  })
})

describe('what init cannot write, said', () => {
  it('a response of XML or bytes with no example is listed as answered without a body, with the fix', async () => {
    const { routes, skipped } = await mocksOf({
      'openapi.yaml': `${HEAD}paths:
  /feed:
    get:
      responses: { '200': { description: atom, content: { application/atom+xml: { schema: { type: object, properties: { title: { type: string } } } } } } }
  /avatar:
    get:
      responses: { '200': { description: png, content: { image/png: { schema: { type: string, format: binary } } } } }
  /page:
    get:
      responses: { '200': { description: html, content: { text/html: { example: '<p>hi</p>' } } } }
`,
    })
    expect(routes.feed).toEqual({ get: { status: 200 } })
    expect(skipped).toEqual([
      'GET /feed response 200: its body (application/atom+xml), as it has no example, and init makes bodies of JSON or text only from a schema; the mock answers 200 without a body or Content-Type. Add an example of the body to the document (content: application/atom+xml: example:) to serve one',
      'GET /avatar response 200: its body (image/png), as it has no example, and init makes bodies of JSON or text only from a schema; the mock answers 200 without a body or Content-Type. Add an example of the body to the document (content: image/png: example:) to serve one',
    ])
  })

  it('a 3.1 document of webhooks only: nothing to mock, said so, nothing written', async () => {
    const dir = join(root, 'webhooks')
    mkdirSync(dir)
    writeFileSync(join(dir, 'openapi.yaml'), "openapi: 3.1.0\ninfo: { title: x, version: '1' }\nwebhooks:\n  ping:\n    post:\n      responses: { '200': { description: ok } }\n")
    await expect(initFromOpenApi({ openapi: 'openapi.yaml', cwd: dir })).rejects.toThrow('openapi.yaml documents no paths, so there is nothing to mock: its webhooks are requests the API sends, not answers, and mockyard does not mock them')
    expect(readdirSync(dir)).toEqual(['openapi.yaml'])
  })
})

describe('route keys', () => {
  it("a protocol-relative server URL (swagger2openapi's //host/v2) gives its path, not its host", async () => {
    const { routes } = await mocksOf({ 'openapi.yaml': `${HEAD}servers: [{ url: '//petstore.swagger.io/v2' }]\npaths:\n  /pet/{petId}:\n    get:\n      ${ok('{ id: 1 }')}\n` })
    expect(Object.keys(routes)).toEqual(['v2/pet/:petId'])
  })

  it("an operation's own servers give its base path, before its path item's and the document's", async () => {
    const { routes } = await mocksOf({
      'openapi.yaml': `${HEAD}servers: [{ url: 'https://api.example.com/v1' }]
paths:
  /reports:
    servers: [{ url: 'https://reports.example.com/v3' }]
    get:
      servers: [{ url: 'https://files.example.com/v2' }]
      ${ok('{ r: 1 }')}
    delete:
      responses: { '204': { description: gone } }
  /users:
    get:
      ${ok('[]')}
`,
    })
    expect(routes).toEqual({ 'v2/reports': { get: 'v2-reports.json' }, 'v3/reports': { delete: { status: 204 } }, 'v1/users': { get: 'v1-users.json' } })
  })

  it('a custom method (/operations/{id}:cancel) is not merged into /operations/{id}: it is left out, and said so, in either order', async () => {
    const get = `  /operations/{id}:\n    get:\n      ${ok('{ name: op }')}\n`
    const cancel = `  /operations/{id}:cancel:\n    post:\n      ${ok('{ cancelled: true }')}\n    get:\n      ${ok('{ other: true }')}\n`
    for (const paths of [get + cancel, cancel + get]) {
      const { routes, skipped, body, operations } = await mocksOf({ 'openapi.yaml': `${HEAD}paths:\n${paths}` })
      expect(Object.keys(routes)).toEqual(['operations/:id'])
      expect(Object.keys(routes['operations/:id']!)).toEqual(['get'])
      expect(body(routes['operations/:id']!.get)).toEqual({ name: 'op' })
      expect(operations).toBe(1)
      expect(skipped).toEqual([
        'GET /operations/{id}:cancel: its route would be operations/:id, the route of /operations/{id} (a route key\'s parameter is a whole segment, so text beside a template cannot tell the paths apart)',
        'POST /operations/{id}:cancel: its route would be operations/:id, the route of /operations/{id} (a route key\'s parameter is a whole segment, so text beside a template cannot tell the paths apart)',
      ])
    }
    // Alone, it is still one parameter for the whole segment.
    const { routes } = await mocksOf({ 'openapi.yaml': `${HEAD}paths:\n${cancel}` })
    expect(Object.keys(routes['operations/:id']!)).toEqual(['get', 'post'])
  })

  it("paths whose keys differ only by a parameter's name (GitHub's /compare/{basehead} and /compare/{base}...{head}) are one route: the second is left out, said so, and check passes", async () => {
    const { routes, skipped, dir } = await mocksOf({
      'openapi.yaml': `openapi: 3.1.0
info: { title: t, version: '1' }
paths:
  /compare/{base}...{head}:
    get:
      ${ok('{ kind: dots }')}
  /compare/{basehead}:
    get:
      ${ok('{ kind: basehead }')}
  /orgs/{org}/attestations/{attestation_id}:
    delete:
      responses: { '204': { description: deleted } }
  /orgs/{org}/attestations/{subject_digest}:
    get:
      ${ok('{ attestations: [] }')}
  /matrix{;id}:
    get:
      ${ok('{ m: 1 }')}
`,
    })
    expect(Object.keys(routes)).toEqual(['compare/:basehead', 'orgs/:org/attestations/:attestation_id', ':id'])
    expect(Object.keys(routes['orgs/:org/attestations/:attestation_id']!)).toEqual(['delete', 'get'])
    expect(skipped).toEqual([
      "GET /compare/{base}...{head}: its route would be compare/:base, which the router takes as compare/:basehead, the route of /compare/{basehead} (a route key's parameter is a whole segment, so text beside a template cannot tell the paths apart)",
    ])
    const { entries } = await checkOpenApi(await loadOpenApi(join(dir, 'openapi.yaml'), (file) => file), [{ file: 'routes.json', routes, data: join(dir, 'mocks/data') }])
    expect(entries).toEqual([])
  })

  it('a non-ASCII literal is written percent-encoded, as the request path carries it, so the route table finds it', async () => {
    const { routes, files } = await mocksOf({ 'openapi.yaml': `${HEAD}servers: [{ url: /Zürich }]\npaths:\n  /café/menu:\n    get:\n      ${ok('{ ok: 1 }')}\n  /a^b:\n    get:\n      ${ok('{ caret: 1 }')}\n` })
    expect(Object.keys(routes)).toEqual(['Z%C3%BCrich/caf%C3%A9/menu', 'Z%C3%BCrich/a%5Eb'])
    expect(files.sort()).toEqual(['Z-rich-a-b.json', 'Z-rich-caf-menu.json'])
    const table = compileRoutes([{ file: 'routes.json', routes, files: memoryFiles({}) }])
    expect(table.lookup(new URL('http://localhost/Zürich/café/menu').pathname)?.route.key).toBe('Z%C3%BCrich/caf%C3%A9/menu')
    expect(table.lookup(new URL('http://localhost/Zürich/a^b').pathname)?.route.key).toBe('Z%C3%BCrich/a%5Eb')
  })
})

describe('a document init cannot use', () => {
  it('a remote $ref is refused in the words of init, not check', async () => {
    const dir = join(root, 'remote')
    mkdirSync(dir)
    writeFileSync(join(dir, 'openapi.yaml'), `${HEAD}paths:\n  /a:\n    get:\n      responses: { '200': { $ref: 'http://example.invalid/a.yaml' } }\n`)
    await expect(initFromOpenApi({ openapi: 'openapi.yaml', cwd: dir })).rejects.toThrow(
      'openapi.yaml cannot be used: the $ref "http://example.invalid/a.yaml" in openapi.yaml is remote (http://example.invalid/a.yaml); mockyard init makes no network access, so it was not fetched',
    )
  })
})
