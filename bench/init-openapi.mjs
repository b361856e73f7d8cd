/**
 * Time of `mockyard init --openapi` on a generated 50-operation document (issue 25: target under
 * 2 s), beside reading the document alone (the `$ref` bundling, the version checks and the
 * validator set-up `mockyard check` does too) as the baseline, interleaved for `--rounds` rounds
 * in one process; then the whole command as a user runs it (a new Node process, `dist/`), which
 * adds Node's start and the module loading.
 *
 *   npm run build && npx node bench/init-openapi.mjs
 *   npx node bench/init-openapi.mjs --operations 200 --rounds 9
 *
 * The internal functions are bundled from src/ with the build's settings (as bench/internals.mjs
 * does); every output goes to a temporary folder, deleted at the end.
 */
import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { rolldown } from 'rolldown'
import config from '../rolldown.config.mjs'

const args = process.argv.slice(2)
const option = (name, fallback) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : fallback)
const OPERATIONS = option('--operations', 50)
const ROUNDS = option('--rounds', 5)

/** loadOpenApi and initFromOpenApi, bundled from the sources into .tmp/bench-internals/ (two folders deep, as in dist/). */
async function loadInternals() {
  const dir = fileURLToPath(new URL('../.tmp/bench-internals/', import.meta.url))
  mkdirSync(dir, { recursive: true })
  const entry = join(dir, `init-entry-${process.pid}.ts`)
  const src = fileURLToPath(new URL('../src/', import.meta.url))
  writeFileSync(entry, `export { loadOpenApi } from ${JSON.stringify(join(src, 'check/check-openapi.ts'))}\nexport { initFromOpenApi } from ${JSON.stringify(join(src, 'init/init-openapi.ts'))}\nexport { generateMocks } from ${JSON.stringify(join(src, 'init/routes-from-openapi.ts'))}\n`)
  const bundle = await rolldown({ ...config, input: entry, plugins: [] })
  const { output } = await bundle.generate({ format: 'esm', codeSplitting: false })
  await bundle.close()
  const file = join(dir, `init-openapi-${process.pid}.js`)
  writeFileSync(file, output[0].code)
  rmSync(entry)
  return { module: await import(pathToFileURL(file).href), file }
}

/**
 * An OpenAPI 3.1 document with `count` operations: resources of two or three operations each,
 * with schemas that use what init handles (formats, enums, allOf, oneOf with a discriminator, a
 * cycle, named examples, error responses).
 */
function generateDocument(count) {
  const paths = {}
  const schemas = {
    Problem: { type: 'object', required: ['title', 'status'], properties: { title: { type: 'string' }, status: { type: 'integer', minimum: 400, maximum: 599 } } },
    Audit: { type: 'object', required: ['createdAt', 'createdBy'], properties: { createdAt: { type: 'string', format: 'date-time' }, createdBy: { type: 'string', format: 'email' } } },
    Card: { type: 'object', required: ['type', 'last4'], properties: { type: { type: 'string', enum: ['card'] }, last4: { type: 'string', pattern: '^\\d{4}$' } } },
    Wire: { type: 'object', required: ['type', 'iban'], properties: { type: { type: 'string', enum: ['wire'] }, iban: { type: 'string', minLength: 15 } } },
    Payment: { oneOf: [{ $ref: '#/components/schemas/Card' }, { $ref: '#/components/schemas/Wire' }], discriminator: { propertyName: 'type', mapping: { card: '#/components/schemas/Card', wire: '#/components/schemas/Wire' } } },
  }
  let operations = 0
  for (let i = 0; operations < count; i++) {
    const name = `Resource${i}`
    schemas[name] = {
      allOf: [
        { $ref: '#/components/schemas/Audit' },
        {
          type: 'object',
          required: ['id', 'name', 'state'],
          properties: {
            id: { type: 'string', format: 'uuid' },
            name: { type: 'string' },
            state: { type: 'string', enum: ['draft', 'live', 'gone'] },
            amount: { type: 'number', exclusiveMinimum: 0, multipleOf: 0.01 },
            tags: { type: 'array', items: { type: 'string' } },
            note: { type: ['string', 'null'] },
            payment: { $ref: '#/components/schemas/Payment' },
            parent: { $ref: `#/components/schemas/${name}` },
            homepage: { type: 'string', format: 'uri' },
          },
        },
      ],
    }
    const ref = { $ref: `#/components/schemas/${name}` }
    const problem = { description: 'Problem', content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } } }
    paths[`/resources${i}`] = {
      get: { responses: { 200: { description: 'List', content: { 'application/json': { schema: { type: 'array', items: ref } } } }, default: problem } },
      post: { requestBody: { content: { 'application/json': { schema: ref } } }, responses: { 201: { description: 'Created', content: { 'application/json': { schema: ref } } }, 422: problem } },
    }
    operations += 2
    if (operations >= count) break
    paths[`/resources${i}/{id}`] = {
      get: {
        responses: {
          200: { description: 'One', content: { 'application/json': { schema: ref, examples: { first: { value: { id: '3fa85f64-5717-4562-b3fc-2c963f66afa6', name: 'first', state: 'live', createdAt: '2024-01-01T00:00:00Z', createdBy: 'a@example.com' } } } } } },
          404: { description: 'Missing', content: { 'application/json': { schema: { $ref: '#/components/schemas/Problem' }, examples: { gone: { value: { title: 'Gone', status: 404 } }, never: { value: { title: 'Never', status: 404 } } } } } },
        },
      },
    }
    operations++
  }
  return { openapi: '3.1.0', info: { title: 'Bench', version: '1.0.0' }, servers: [{ url: 'https://api.example.test/v1' }], paths, components: { schemas } }
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]
const ms = (value) => `${value.toFixed(0)} ms`.padStart(8)

const dir = mkdtempSync(join(tmpdir(), 'mockyard-init-bench-'))
const { module: internals, file: bundled } = await loadInternals()
try {
  const document = join(dir, 'openapi.json')
  writeFileSync(document, JSON.stringify(generateDocument(OPERATIONS), null, 2))
  console.log(`document: ${OPERATIONS} operations, ${Object.keys(generateDocument(OPERATIONS).components.schemas).length} schemas`)

  const times = { 'read document (baseline)': [], 'read + make the mocks': [], init: [] }
  let written
  for (let round = 0; round < ROUNDS; round++) {
    let start = performance.now()
    const api = await internals.loadOpenApi(document, (file) => file)
    times['read document (baseline)'].push(performance.now() - start)
    // The mocks made in memory (with the oneOf validator, as init makes them): what init adds before writing files.
    internals.generateMocks({ doc: api.doc, validates: (schema, value) => api.validatorAt(api.pointerOf(schema))(value) })
    times['read + make the mocks'].push(performance.now() - start)
    start = performance.now()
    written = await internals.initFromOpenApi({ openapi: document, out: join(dir, `mocks-${round}`) })
    times.init.push(performance.now() - start)
  }
  console.log(`written: ${written.routes} routes, ${written.entries} entries, ${written.files} data files`)
  console.log(`\nin process, ${ROUNDS} interleaved rounds (the first loads the modules):`)
  console.log('                            first   median')
  for (const [name, values] of Object.entries(times)) console.log(`${name.padEnd(26)}${ms(values[0])} ${ms(median(values))}`)
  console.log(`init / read document (median): ${(median(times.init) / median(times['read document (baseline)'])).toFixed(2)}x; the rest of init is writing ${written.files + 1} files atomically`)

  // As a user runs it: a new process each time.
  const cli = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url))
  const wall = []
  const version = []
  for (let round = 0; round < ROUNDS; round++) {
    let start = performance.now()
    spawnSync(process.execPath, [cli, '--version'], { encoding: 'utf8' })
    version.push(performance.now() - start)
    start = performance.now()
    const run = spawnSync(process.execPath, [cli, 'init', '--openapi', document, '--out', join(dir, 'cli'), '--force'], { encoding: 'utf8' })
    wall.push(performance.now() - start)
    if (run.status !== 0) throw new Error(`mockyard init failed: ${run.stderr}`)
  }
  console.log(`\nthe command, a new process each round (target: under 2,000 ms):`)
  console.log(`mockyard --version (Node's start)  median ${ms(median(version))}`)
  console.log(`mockyard init --openapi            median ${ms(median(wall))}   (max ${ms(Math.max(...wall)).trim()})`)
  console.log(`${readdirSync(join(dir, 'cli', 'data')).length} data files written by the command`)
} finally {
  rmSync(dir, { recursive: true, force: true })
  rmSync(bundled, { force: true })
}
