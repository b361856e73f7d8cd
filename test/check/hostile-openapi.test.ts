/**
 * `mockyard check --openapi` against hostile documents, run as a user runs it (the built CLI, a
 * document written to a temporary folder): `$ref`s to files that are not schemas, to the
 * network, in cycles; alias bombs, catastrophic patterns, endless and oversized files; route keys
 * that would inject GitHub workflow commands. Each ends with a problem that says what is wrong.
 */
import { execFile, spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:net'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { writeFiles } from './project.js'

const CLI = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url))
let root: string

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'mockyard-hostile-'))
  writeFiles(root, {
    'routes.json': { 'v1/users': { file: 'users.json' } },
    'users.json': [{ name: 'ann' }],
  })
})
afterAll(() => rmSync(root, { recursive: true, force: true }))

interface Run {
  code: number | null
  stdout: string
  stderr: string
  lines: string[]
}

/** Runs `mockyard check` in the temporary folder without blocking this process (a loopback listener may be watching). */
function check(args: string[], options: { nodeArgs?: string[]; env?: Record<string, string> } = {}): Promise<Run> {
  const env = { ...process.env, GITHUB_ACTIONS: '', GITHUB_WORKSPACE: '', NO_COLOR: '1', ...options.env }
  return new Promise((resolve) => {
    execFile(process.execPath, [...(options.nodeArgs ?? []), CLI, 'check', ...args], { cwd: root, env, encoding: 'utf8', timeout: 60_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : null) : 0
      resolve({ code, stdout, stderr, lines: stdout.split('\n').filter(Boolean) })
    })
  })
}

/** A 3.1 document whose one operation, GET /v1/users, answers 200 with `schema`, plus `extra` YAML. */
function document(schema: string, extra = ''): string {
  return `openapi: 3.1.0
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
              schema: ${schema}
${extra}`
}

const checkDocument = (name: string, content: string, args: string[] = []) => {
  writeFileSync(join(root, name), content)
  return check(['--routes', 'routes.json', '--data', '.', '--openapi', name, ...args])
}

describe('$refs to files that are not schemas', () => {
  it('/etc/passwd, named by absolute path, relative path or file: URL, is a problem naming it, and is never read', async () => {
    const toPasswd = relative(root, '/etc/passwd')
    for (const [name, ref] of [
      ['absolute.yaml', '/etc/passwd'],
      ['relative.yaml', toPasswd],
      ['url.yaml', 'file:///etc/passwd'],
    ] as const) {
      const { code, lines } = await checkDocument(name, document(`{ $ref: '${ref}' }`))
      expect(lines).toEqual([
        `${name}#: the OpenAPI document cannot be used: the $ref "${ref}" in ${name} names /etc/passwd, which is not a schema: $refs name .json, .yaml or .yml files. Point the $ref at a schema (an object) in a .json, .yaml or .yml file.`,
        '[mockyard] check: 1 problem.',
      ])
      expect(code).toBe(1)
    }
  })

  it('a JSON file that holds a string is named, with the place of the $ref', async () => {
    writeFileSync(join(root, 'text.json'), '"root:x:0:0"\n')
    const { code, stdout } = await checkDocument('string.yaml', document(`{ $ref: 'text.json' }`), ['--format', 'json'])
    expect(JSON.parse(stdout)).toEqual([
      {
        severity: 'error',
        kind: 'openapi',
        file: 'string.yaml',
        line: 12,
        pointer: '/paths/~1users/get/responses/200/content/application~1json/schema',
        message:
          'the OpenAPI document cannot be used: the $ref "text.json" at string.yaml#/paths/~1users/get/responses/200/content/application~1json/schema points to a string (text.json#), not a schema',
        fix: 'Point the $ref at a schema (an object).',
      },
    ])
    expect(code).toBe(1)
  })
})

describe('no network', () => {
  let server: Server
  let connections = 0
  beforeAll(async () => {
    server = createServer((socket) => {
      connections++
      socket.destroy()
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  })
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

  /**
   * Preloaded into the CLI and its threads (`--require` runs in worker threads too, `--import`
   * does not): records every host name looked up and every connection made.
   */
  const hook = () => {
    const log = join(root, 'network.log')
    const file = join(root, 'network-hook.cjs')
    writeFileSync(
      file,
      `const dns = require('node:dns')
const net = require('node:net')
const note = (what) => require('node:fs').appendFileSync(${JSON.stringify(log)}, what + '\\n')
const lookup = dns.lookup
dns.lookup = function (host, ...rest) { note('lookup ' + host); return lookup.call(this, host, ...rest) }
const promised = dns.promises.lookup
dns.promises.lookup = function (host, ...rest) { note('lookup ' + host); return promised.call(this, host, ...rest) }
const connect = net.Socket.prototype.connect
net.Socket.prototype.connect = function (...args) { note('connect'); return connect.apply(this, args) }
`,
    )
    writeFileSync(log, '')
    return { nodeArgs: ['--require', file], log: () => readFileSync(log, 'utf8') }
  }

  it('the hook sees a fetch made in a thread (the test below looks in the right place)', async () => {
    const { nodeArgs, log } = hook()
    // A port nothing listens on any more: the listener of the next test sees nothing of this.
    const closed = createServer()
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
    const { port } = closed.address() as { port: number }
    await new Promise((resolve) => closed.close(resolve))
    const thread = `fetch('http://localhost:${port}/').catch(() => {})`
    const script = `new (require('node:worker_threads').Worker)(${JSON.stringify(thread)}, { eval: true })`
    spawnSync(process.execPath, [...nodeArgs, '-e', script], { encoding: 'utf8', timeout: 15_000 })
    expect(log()).toContain('connect')
  })

  it('a $ref to a host name is a problem that says it was not fetched; no name is looked up, nothing connects', async () => {
    const { nodeArgs, log } = hook()
    const { port } = server.address() as { port: number }
    const ref = `http://localhost:${port}/schemas/user.json`
    writeFileSync(join(root, 'remote.yaml'), document(`{ $ref: '${ref}' }`))
    const { code, lines } = await check(['--routes', 'routes.json', '--data', '.', '--openapi', 'remote.yaml'], { nodeArgs })
    expect(lines).toEqual([
      `remote.yaml#: the OpenAPI document cannot be used: the $ref "${ref}" in remote.yaml is remote (${ref}); mockyard check makes no network access, so it was not fetched. Save the file beside the document and name it by its path in the $ref.`,
      '[mockyard] check: 1 problem.',
    ])
    expect(code).toBe(1)
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect(connections).toBe(0)
    expect(log()).toBe('')
  })
})

describe('$ref cycles', () => {
  it('A -> B -> A with nothing in between is named, at the first $ref of the cycle', async () => {
    const schemas = `components:
  schemas:
    A: { $ref: '#/components/schemas/B' }
    B: { $ref: '#/components/schemas/A' }
`
    const { code, lines } = await checkDocument('cycle.yaml', document(`{ $ref: '#/components/schemas/A' }`, schemas))
    expect(lines).toEqual([
      'cycle.yaml#/components/schemas/A: the OpenAPI document cannot be used: the $refs cycle.yaml#/components/schemas/A -> cycle.yaml#/components/schemas/B -> cycle.yaml#/components/schemas/A form a cycle with no schema in between, which never resolves. Make one of them a schema; a $ref inside properties or items (a tree whose children are trees) is fine.',
      '[mockyard] check: 1 problem.',
    ])
    expect(code).toBe(1)
  })

  it('a recursive schema (a tree whose children are trees) still validates, down the tree', async () => {
    writeFileSync(join(root, 'tree.json'), JSON.stringify([{ name: 'a', children: [{ name: 'b', children: [{ name: 3 }] }] }]))
    writeFileSync(join(root, 'tree-routes.json'), JSON.stringify({ 'v1/users': { file: 'tree.json' } }))
    const tree = `components:
  schemas:
    Forest: { type: array, items: { $ref: '#/components/schemas/Tree' } }
    Tree:
      type: object
      properties:
        name: { type: string }
        children: { $ref: '#/components/schemas/Forest' }
`
    writeFileSync(join(root, 'tree.yaml'), document(`{ $ref: '#/components/schemas/Forest' }`, tree))
    const { code, lines } = await check(['--routes', 'tree-routes.json', '--data', '.', '--openapi', 'tree.yaml'])
    expect(lines).toEqual([
      'tree.json#/0/children/0/children/0/name: must be string (schema tree.yaml#/components/schemas/Tree/properties/name/type, response 200 of GET /users). Update the data file to what the API answers now, or the document if it is wrong.',
      'OpenAPI coverage: 1 of 1 operations are mocked.',
      '[mockyard] check: 1 problem.',
    ])
    expect(code).toBe(1)
  })
})

describe('bounded work', () => {
  it('a YAML alias bomb ends with a message', async () => {
    const levels = ['a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for (let i = 1; i < 9; i++) {
      const previous = String.fromCharCode(96 + i)
      levels.push(`${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(9).fill(`*${previous}`).join(', ')}]`)
    }
    const { code, lines } = await checkDocument('bomb.yaml', `${levels.join('\n')}\n${document('{ type: array }')}`)
    expect(lines).toEqual([
      'bomb.yaml#: the OpenAPI document cannot be used: Error parsing bomb.yaml: Excessive alias count indicates a resource exhaustion attack. Give an OpenAPI 3.0 or 3.1 document (JSON or YAML) whose $refs resolve.',
      '[mockyard] check: 1 problem.',
    ])
    expect(code).toBe(1)
  }, 60_000)

  it('a catastrophic pattern against a crafted value is stopped with a message, and the other data files are still checked', async () => {
    writeFiles(root, {
      'redos/routes.json': { 'v1/users': { file: 'crafted.json' }, 'v1/pets': { file: 'pets.json' } },
      'redos/crafted.json': [{ name: `${'a'.repeat(40)}!` }],
      'redos/pets.json': [{ id: 'x' }],
      'redos/openapi.yaml': `${document("{ type: array, items: { type: object, properties: { name: { type: string, pattern: '^(a+)+$' } } } }")}  /pets:
    get:
      responses:
        '200':
          description: The pets.
          content:
            application/json:
              schema: { type: array, items: { type: object, properties: { id: { type: integer } } } }
`,
    })
    const { code, lines } = await check(['--routes', 'redos/routes.json', '--data', 'redos', '--openapi', 'redos/openapi.yaml'])
    expect(lines).toEqual([
      'redos/pets.json#/0/id: must be integer (schema redos/openapi.yaml#/paths/~1pets/get/responses/200/content/application~1json/schema/items/properties/id/type, response 200 of GET /pets). Update the data file to what the API answers now, or the document if it is wrong.',
      'redos/crafted.json#: validating the data file against redos/openapi.yaml#/paths/~1users/get/responses/200/content/application~1json/schema (GET /users) took more than 4 s and was stopped. A "pattern" with a repeated group that can itself repeat (^(a+)+$) takes exponential time on some values: write it without nested quantifiers (^a+$).',
      'OpenAPI coverage: 2 of 2 operations are mocked.',
      '[mockyard] check: 2 problems.',
    ])
    expect(code).toBe(1)
  }, 60_000)

  it('reads regular files only: a device, a named pipe and a folder are problems, not endless reads', async () => {
    mkdirSync(join(root, 'folder.yaml'), { recursive: true })
    const fifo = spawnSync('mkfifo', [join(root, 'pipe.yaml')])
    expect(fifo.status).toBe(0)
    for (const [path, what] of [
      ['/dev/zero', 'a device'],
      ['pipe.yaml', 'a named pipe'],
      ['folder.yaml', 'a folder'],
    ] as const) {
      const { code, lines } = await check(['--routes', 'routes.json', '--data', '.', '--openapi', path])
      expect(lines).toEqual([
        `${path}#: the OpenAPI document cannot be used: ${path} is ${what}, not a file. Name a regular file (not a folder, a pipe or a device).`,
        '[mockyard] check: 1 problem.',
      ])
      expect(code).toBe(1)
    }
  }, 60_000)

  it('refuses a document over 32 MB, and a $ref to one', async () => {
    writeFileSync(join(root, 'huge.json'), '{}')
    truncateSync(join(root, 'huge.json'), 33 * 1024 * 1024)
    const { lines } = await check(['--routes', 'routes.json', '--data', '.', '--openapi', 'huge.json'])
    expect(lines).toEqual([
      'huge.json#: the OpenAPI document cannot be used: huge.json is larger than 32 MB (33 MB). Give a document of at most 32 MB, the files its $refs name included.',
      '[mockyard] check: 1 problem.',
    ])
    const referring = await checkDocument('refers-huge.yaml', document(`{ $ref: 'huge.json' }`))
    expect(referring.lines[0]).toBe(
      'refers-huge.yaml#: the OpenAPI document cannot be used: huge.json (the $ref "huge.json" in refers-huge.yaml) is larger than 32 MB (33 MB). Give a document of at most 32 MB, the files its $refs name included.',
    )
  })
})

describe('GitHub Actions', () => {
  it('a route key holding a workflow command starts no line: text lines are one line each, annotation data escaped', async () => {
    writeFileSync(join(root, '::stop-commands::T,1.json'), JSON.stringify({ 'v1/x\n::stop-commands::T\r%0A': { file: 'nope.json' } }))
    const { lines, stdout } = await check(['--routes', '::stop-commands::T,1.json', '--data', '.'], { env: { GITHUB_ACTIONS: 'true' } })
    expect(lines).toEqual([
      './::stop-commands::T,1.json#/v1~1x\\n::stop-commands::T\\r%0A: "v1/x\\n::stop-commands::T\\r%0A" is not a route path. Write the key as a path without query or spaces, like "v1/users/:id".',
      '::error file=%3A%3Astop-commands%3A%3AT%2C1.json,line=1,title=mockyard check%3A config::#/v1~1x%0A::stop-commands::T%0D%250A "v1/x%0A::stop-commands::T%0D%250A" is not a route path. Write the key as a path without query or spaces, like "v1/users/:id".',
      '[mockyard] check: 1 problem.',
    ])
    expect(stdout.split('\n').filter((line) => line.trimStart().startsWith('::') && !line.startsWith('::error '))).toEqual([])
  })
})

describe('flags', () => {
  it('a misspelt --openapi fails with the flag it meant, and checks nothing', async () => {
    const { code, stdout, stderr } = await check(['--routes', 'routes.json', '--data', '.', '--opnapi', 'cycle.yaml'])
    expect(stderr).toBe('[mockyard] check: unknown flag --opnapi: did you mean --openapi? Run mockyard check --help for the options.\n')
    expect(stdout).toBe('')
    expect(code).toBe(2)
  })
})
