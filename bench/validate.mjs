/**
 * The cost of the `validate` option per request, in process (issue 25): the path
 * `setupMockServer` takes (createInstance, attachContract, interceptInstance, then `fetch`),
 * with and without `validate`, in the same process and run, in interleaved rounds.
 *
 *   npm run --silent build && npx node bench/validate.mjs            5 rounds of 2,000 requests per case
 *   npx node bench/validate.mjs --rounds 3 --count 1000
 *
 * Each request is timed on its own (performance.now() around `await fetch()` and reading the
 * body); the table shows the median and the 90th percentile of every request of a case over all
 * rounds, and the median's difference to the same requests without `validate` (target: at most
 * 1 ms). Three requests, each a kind of work the checker does: a GET whose answer is a data file
 * (the answer's bytes are the engine's cached ones: their validation is cached with them), a GET
 * with path and query parameters, and a POST whose JSON request body is validated every time.
 * The first request of a validating instance (ajv compiles the schemas it needs) is shown apart.
 * mockyard's internals come from the sources, bundled as the build does (bench/internals.mjs).
 */
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { buildInternals } from './internals.mjs'

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '5' }, count: { type: 'string', default: '2000' } } })
const ROUNDS = Number(values.rounds)
const COUNT = Number(values.count)

const USERS = Array.from({ length: 20 }, (_, i) => ({ id: i + 1, email: `user${i + 1}@example.com`, name: `User ${i + 1}`, roles: ['reader'], active: i % 2 === 0 }))

/** A document with a servers base path, $refs, a list, a parameterised GET and a POST with a body. */
const DOCUMENT = {
  openapi: '3.1.0',
  info: { title: 'bench', version: '1' },
  servers: [{ url: 'https://api.test/v1' }],
  paths: {
    '/users': {
      get: {
        parameters: [{ name: 'role', in: 'query', schema: { type: 'string', enum: ['reader', 'admin'] } }],
        responses: { 200: { description: 'ok', content: { 'application/json': { schema: { type: 'array', items: { $ref: '#/components/schemas/User' } } } } } },
      },
      post: {
        requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/NewUser' } } } },
        responses: { 201: { description: 'created', content: { 'application/json': { schema: { $ref: '#/components/schemas/User' } } } } },
      },
    },
    '/users/{id}': {
      get: {
        parameters: [
          { name: 'id', in: 'path', required: true, schema: { type: 'integer', minimum: 1 } },
          { name: 'fields', in: 'query', schema: { type: 'array', items: { type: 'string' } } },
        ],
        responses: { 200: { description: 'ok', content: { 'application/json': { schema: { $ref: '#/components/schemas/User' } } } } },
      },
    },
  },
  components: {
    schemas: {
      User: {
        type: 'object',
        required: ['id', 'email'],
        additionalProperties: false,
        properties: { id: { type: 'integer' }, email: { type: 'string', format: 'email' }, name: { type: 'string' }, roles: { type: 'array', items: { type: 'string' } }, active: { type: 'boolean' } },
      },
      NewUser: { type: 'object', required: ['email'], properties: { email: { type: 'string', format: 'email' }, name: { type: 'string', maxLength: 100 } } },
    },
  },
}

const CASES = [
  ['GET a 20-user list (data file)', () => fetch('https://api.test/v1/users?role=reader')],
  ['GET one user (path + query params)', () => fetch('https://api.test/v1/users/7?fields=name&fields=email')],
  ['POST a JSON body (validated each time)', () => fetch('https://api.test/v1/users', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'new@example.com', name: 'New' }) })],
]

const root = mkdtempSync(join(tmpdir(), 'mockyard-bench-validate-'))
mkdirSync(join(root, 'data'))
writeFileSync(join(root, 'openapi.json'), JSON.stringify(DOCUMENT))
writeFileSync(join(root, 'data', 'users.json'), JSON.stringify(USERS, null, 2))
writeFileSync(join(root, 'data', 'user.json'), JSON.stringify(USERS[6], null, 2))
writeFileSync(join(root, 'routes.json'), JSON.stringify({ 'v1/users': { get: 'users.json', post: { status: 201, file: 'user.json' } }, 'v1/users/:id': { file: 'user.json' } }))

const { createInstance, attachContract, interceptInstance } = await import(await buildInternals())
const quiet = () => ({ log() {}, debug() {}, info() {}, warn() {}, error() {} })

/** Runs every case COUNT times on one instance (intercepting while it runs); per-request times in ms. */
async function round(validate, times, firsts) {
  const instance = await createInstance({ routes: join(root, 'routes.json'), data: join(root, 'data'), latency: 0, watch: false, logProvider: quiet, ...(validate ? { validate: join(root, 'openapi.json') } : {}) }, { latency: 0, watch: false, logLevel: 'error', readOnFirstUse: true })
  await attachContract(instance)
  const interception = interceptInstance(instance)
  try {
    for (const [name, send] of CASES) {
      const key = `${name}|${validate}`
      for (let i = 0; i < COUNT; i++) {
        const started = performance.now()
        const response = await send()
        await response.arrayBuffer()
        const ms = performance.now() - started
        if (i === 0) (firsts[key] ??= []).push(ms)
        else (times[key] ??= []).push(ms)
        if (response.status >= 300) throw new Error(`${name}: status ${response.status}`)
      }
      // Nothing in this workload breaks the document: a violation would mean the bench is wrong.
      const broken = instance.log.list().find((record) => record.violations)
      if (broken) throw new Error(`${name}: unexpected violations ${JSON.stringify(broken.violations)}`)
      instance.reset()
    }
  } finally {
    await interception.dispose()
    await instance.close()
  }
}

const percentile = (list, p) => {
  const sorted = [...list].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]
}

const times = {}
const firsts = {}
// A warm-up round of each, then interleaved rounds (the order swapped each round).
await round(false, {}, {})
await round(true, {}, {})
for (let r = 0; r < ROUNDS; r++) {
  for (const validate of r % 2 === 0 ? [false, true] : [true, false]) await round(validate, times, firsts)
}
rmSync(root, { recursive: true, force: true })

const fmt = (ms) => ms.toFixed(3).padStart(8)
console.log(`validate: cost per request in process (setupMockServer's path, fetch), ${ROUNDS} interleaved rounds x ${COUNT} requests per case, Node ${process.version}`)
console.log(`${'case'.padEnd(42)} ${'base p50'.padStart(8)} ${'valid p50'.padStart(9)} ${'cost p50'.padStart(8)} ${'base p90'.padStart(8)} ${'valid p90'.padStart(9)} ${'1st req'.padStart(8)}  (ms)`)
for (const [name] of CASES) {
  const base = times[`${name}|false`]
  const checked = times[`${name}|true`]
  const cost = percentile(checked, 50) - percentile(base, 50)
  console.log(`${name.padEnd(42)} ${fmt(percentile(base, 50))} ${fmt(percentile(checked, 50)).padStart(9)} ${fmt(cost)} ${fmt(percentile(base, 90))} ${fmt(percentile(checked, 90)).padStart(9)} ${fmt(percentile(firsts[`${name}|true`], 50))}${cost > 1 ? '  over the 1 ms target' : ''}`)
}
