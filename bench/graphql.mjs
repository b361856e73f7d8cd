/**
 * GraphQL matching, in process: the engine's cost per request for a method of `operation`
 * entries against a plain JSON-body route with the same number of entries (params on a body
 * field), the same request bytes, in one process, interleaved rounds, medians (target: at most
 * 1.3x). Then the document reader: mockyard's operation scanner against graphql-js's `parse`
 * (what a full parser would cost per document, and to load), the figures behind
 * decisions/0021-graphql-operation-scanner.md.
 *
 *   npm run build && npx node bench/graphql.mjs [--rounds 21] [--requests 5000] [--entries 20]
 */
import { execFileSync } from 'node:child_process'
import { readdirSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { compileRoutes, createEngine, memoryFiles } from '../dist/core/index.js'

const args = process.argv.slice(2)
const flag = (name, fallback) => {
  const at = args.indexOf(name)
  return at >= 0 ? Number(args[at + 1]) : fallback
}
const rounds = flag('--rounds', 21)
const requests = flag('--requests', 5000)
const entries = flag('--entries', 20)
const target = Math.ceil(entries * 0.75)

const files = memoryFiles({ 'match.json': '{"match":true}', 'other.json': '{"match":false}' })
const names = Array.from({ length: entries }, (_, index) => `GetThing${index + 1}`)
const document = (name) => `query ${name}($id: ID!, $first: Int = 10) {\n  thing(id: $id) {\n    id\n    name\n    items(first: $first) { edges { node { id title price } } }\n  }\n}`
const file = (index) => (index + 1 === target ? 'match.json' : 'other.json')

const routes = {
  graphql: { post: names.map((name, index) => ({ operation: name, file: file(index) })) },
  search: { post: names.map((name, index) => ({ params: { operationName: name }, file: file(index) })) },
}
const encode = (value) => new TextEncoder().encode(JSON.stringify(value))
const wanted = names[target - 1]
const cases = {
  // Apollo Client and urql send the operationName with the document.
  'named (operationName sent)': {
    graphql: { url: 'http://127.0.0.1/graphql', body: encode({ operationName: wanted, query: document(wanted), variables: { id: '42' } }) },
    plain: { url: 'http://127.0.0.1/search', body: encode({ operationName: wanted, query: document(wanted), variables: { id: '42' } }) },
  },
  // A plain fetch without operationName: the document is scanned for its one operation (then remembered).
  'document (name scanned)': {
    graphql: { url: 'http://127.0.0.1/graphql', body: encode({ query: document(wanted), variables: { id: '42' } }) },
    plain: { url: 'http://127.0.0.1/search', body: encode({ operationName: wanted, query: document(wanted), variables: { id: '42' } }) },
  },
  // 64 documents in turn, more than a scanner remembers: every one is scanned.
  'document, 64 distinct': {
    graphql: { url: 'http://127.0.0.1/graphql', bodies: Array.from({ length: 64 }, (_, i) => encode({ query: `${document(wanted)}\n# ${i}`, variables: { id: '42' } })) },
    plain: { url: 'http://127.0.0.1/search', bodies: Array.from({ length: 64 }, (_, i) => encode({ operationName: wanted, query: `${document(wanted)}\n# ${i}`, variables: { id: '42' } })) },
  },
}

const headers = new Headers({ 'content-type': 'application/json' })
const engine = createEngine(compileRoutes([{ file: 'routes.json', routes, files }]), { cors: false })

/** Nanoseconds per request over `requests` calls of `engine.handle` (all answered at once with match.json). */
function measure(request) {
  const bodies = request.bodies ?? [request.body]
  const engineRequests = bodies.map((body) => ({ method: 'POST', url: request.url, headers, body: () => body }))
  let matched = 0
  const start = process.hrtime.bigint()
  for (let i = 0; i < requests; i++) {
    const result = engine.handle(engineRequests[i % engineRequests.length])
    if (result.matched && result.info.file === 'match.json') matched++
  }
  const ns = Number(process.hrtime.bigint() - start) / requests
  if (matched !== requests) throw new Error(`expected every request answered with match.json, got ${matched} of ${requests}`)
  return ns
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]

// The engine's first GraphQL request loads the scanner (a promise); every later one is answered at once.
await engine.handle({ method: 'POST', url: cases['named (operationName sent)'].graphql.url, headers, body: () => cases['named (operationName sent)'].graphql.body })

console.log(`GraphQL matching in process — Node ${process.version}, ${entries} entries, ${rounds} interleaved rounds of ${requests} requests`)
console.log('case                         plain ns/req  graphql ns/req  ratio of medians  paired ratio: median (min-max)')
for (const [id, pair] of Object.entries(cases)) {
  measure(pair.plain)
  measure(pair.graphql)
  const times = { plain: [], graphql: [] }
  const ratios = []
  for (let round = 0; round < rounds; round++) {
    // Back to back, order alternating: each round's ratio sees the same load on both (decisions/0016).
    const order = round % 2 === 0 ? ['plain', 'graphql'] : ['graphql', 'plain']
    for (const which of order) times[which].push(measure(pair[which]))
    ratios.push(times.graphql[round] / times.plain[round])
  }
  const p = median(times.plain)
  const g = median(times.graphql)
  const paired = `${median(ratios).toFixed(2)}x (${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)})`
  console.log(`${id.padEnd(27)}  ${p.toFixed(0).padStart(12)}  ${g.toFixed(0).padStart(14)}  ${(g / p).toFixed(2).padStart(15)}x  ${paired}`)
}

// The document reader: the scanner (its own chunk in dist/) against graphql-js.
const chunks = fileURLToPath(new URL('../dist/chunks/', import.meta.url))
const scannerFile = chunks + readdirSync(chunks).find((name) => /^graphql-operation-.*\.js$/.test(name))
const { scanOperation } = await import(scannerFile)
let graphql
try {
  graphql = await import('graphql')
} catch {
  console.log('\n(graphql-js is not installed: the document reader comparison is skipped)')
  process.exit(0)
}
const parseName = (text) => {
  const definitions = graphql.parse(text, { noLocation: true, maxTokens: 10_000 }).definitions.filter((d) => d.kind === 'OperationDefinition')
  return definitions.length === 1 ? definitions[0].name?.value : undefined
}
const sample = document(wanted)
if (scanOperation(sample).name !== wanted || parseName(sample) !== wanted) throw new Error('the two readers disagree on the sample document')
const perDocument = (read) => {
  const start = process.hrtime.bigint()
  for (let i = 0; i < requests; i++) read(sample)
  return Number(process.hrtime.bigint() - start) / requests
}
const reads = { scanner: [], graphql: [] }
perDocument(scanOperation)
perDocument(parseName)
for (let round = 0; round < rounds; round++) {
  reads.scanner.push(perDocument(scanOperation))
  reads.graphql.push(perDocument(parseName))
}
const readRatios = reads.graphql.map((ns, round) => ns / reads.scanner[round])
/** Milliseconds to import a module in a fresh Node process (median of 5). */
const loadTime = (specifier) =>
  median(
    Array.from({ length: 5 }, () =>
      Number(execFileSync(process.execPath, ['--input-type=module', '-e', `const t = performance.now(); await import(${JSON.stringify(specifier)}); console.log(performance.now() - t)`], { cwd: fileURLToPath(new URL('..', import.meta.url)), encoding: 'utf8' })),
    ),
  )
const scannerLoad = loadTime(scannerFile)
const graphqlLoad = loadTime('graphql')
console.log(`\ndocument reader (a ${sample.length}-character document), medians`)
console.log('reader                  ns/document  load ms')
console.log(`scanner (mockyard)     ${median(reads.scanner).toFixed(0).padStart(12)}  ${scannerLoad.toFixed(1).padStart(7)}`)
console.log(`graphql-js ${graphql.version.padEnd(11)} ${median(reads.graphql).toFixed(0).padStart(12)}  ${graphqlLoad.toFixed(1).padStart(7)}`)
console.log(`graphql-js/scanner     ${median(readRatios).toFixed(1).padStart(11)}x  ${(graphqlLoad / scannerLoad).toFixed(1).padStart(6)}x   (paired by round; load: medians of 5 fresh processes)`)
