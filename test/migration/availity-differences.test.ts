/**
 * The differences from `@availity/mock-server` that docs/migration.md lists, each shown by running
 * both servers on the same routes file and data folder and sending both the same request. The old
 * server runs in a process of its own (its configuration is module state, shared by every
 * instance of a process); mockyard is `startMockServer` from the package.
 *
 * Where mockyard differs on purpose (docs/behaviour.md states the rule), the difference is listed
 * in the migration guide; each case below names the line of the guide it proves, and the last
 * test checks the guide lists exactly these cases, so the list cannot go stale either way.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startMockServer } from 'mockyard/node'

const OLD_SERVER = createRequire(import.meta.url).resolve('@availity/mock-server')
const GUIDE = readFileSync(new URL('../../docs/migration.md', import.meta.url), 'utf8')
const CONTEXT = 'http://app.test'

const ROUTES = {
  'v1/conditional': { get: [{ file: 'a.json', params: { q: '1' } }] },
  'v1/headers': { get: [{ file: 'a.json', headers: { 'x-a': '1' } }, { file: 'b.json', headers: { 'x-a': '1', 'x-c': '1' } }] },
  'v1/text': { file: 'context.txt' },
  'v1/maintenance': { status: 503, responseHeader: { 'Retry-After': '120' } },
  'v1/moved': { url: 'http://example.com/elsewhere' },
  'v1/tags': { file: 'default.json', get: [{ file: 'a.json', params: { tag: ['x', 'y'] } }] },
  'v1/nested': { file: 'default.json', post: [{ file: 'a.json', params: { filter: { status: 'open' } } }] },
  'v1/dotted': { file: 'default.json', post: [{ file: 'a.json', params: { 'a.b': '1' } }] },
  'v1/numbers': { file: 'default.json', post: [{ file: 'a.json', params: { page: '2' } }] },
}

const DATA: Record<string, string> = {
  'a.json': '{"file":"a.json"}',
  'b.json': '{"file":"b.json"}',
  'default.json': '{"file":"default.json"}',
  'context.txt': 'served at ${context}',
}

interface Answer {
  status: number
  body: string
  headers: Headers
}

/** One request to a server: status, body text (JSON re-serialised, so indentation is not a difference) and headers. */
async function ask(base: string, path: string, init: RequestInit = {}): Promise<Answer> {
  const res = await fetch(base + path, { redirect: 'manual', ...init })
  const text = await res.text()
  let body = text
  try {
    body = JSON.stringify(JSON.parse(text))
  } catch {
    // not JSON: as sent
  }
  return { status: res.status, body, headers: res.headers }
}

/** Starts @availity/mock-server in a child process and resolves with its URL. */
function startOldServer(routes: string, data: string): Promise<{ url: string; child: ChildProcess }> {
  const script = `const { default: Ekko } = await import(${JSON.stringify(pathToFileURL(OLD_SERVER).href)})
const server = new Ekko()
await server.start({ routes: ${JSON.stringify(routes)}, data: ${JSON.stringify(data)}, port: 0, host: '127.0.0.1', latency: 0, pluginContext: ${JSON.stringify(CONTEXT)} })
console.log('PORT ' + server.config().server.address().port)`
  // NODE_ENV=testing is that package's own switch for a silent request log.
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { env: { ...process.env, NODE_ENV: 'testing' }, stdio: ['ignore', 'pipe', 'pipe'] })
  return new Promise((resolve, reject) => {
    let out = ''
    let err = ''
    child.stdout!.on('data', (chunk) => {
      out += chunk
      const port = /PORT (\d+)/.exec(out)?.[1]
      if (port) resolve({ url: `http://127.0.0.1:${port}`, child })
    })
    child.stderr!.on('data', (chunk) => (err += chunk))
    child.on('exit', (code) => reject(new Error(`@availity/mock-server exited (${code}) before listening: ${err}`)))
  })
}

let folder: string
let old: { url: string; child: ChildProcess }
let ours: Awaited<ReturnType<typeof startMockServer>>

beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), 'mockyard-migration-'))
  mkdirSync(join(folder, 'data'))
  writeFileSync(join(folder, 'routes.json'), JSON.stringify(ROUTES, null, 2))
  for (const [name, text] of Object.entries(DATA)) writeFileSync(join(folder, 'data', name), text)
  ;[old, ours] = await Promise.all([
    startOldServer(join(folder, 'routes.json'), join(folder, 'data')),
    startMockServer({ routes: join(folder, 'routes.json'), data: join(folder, 'data'), pluginContext: CONTEXT }),
  ])
}, 30_000)

afterAll(async () => {
  old?.child.kill()
  await ours?.stop()
  rmSync(folder, { recursive: true, force: true })
})

/** Both servers' answers to the same request: `[old, ours]`. */
const both = (path: string, init?: RequestInit) => Promise.all([ask(old.url, path, init), ask(ours.url, path, init)])
const json = (body: unknown): RequestInit => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
const form = (body: string): RequestInit => ({ method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body })

/** Every case: the guide's marker for it, and the request that shows the difference. */
const cases: Array<[marker: string, title: string, run: () => Promise<void>]> = [
  [
    'M1',
    'a route with only conditional entries, asked without their param: 404 there, the entry (a miss, not a mismatch) here',
    async () => {
      const [before, after] = await both('/v1/conditional')
      expect([before.status, before.body]).toEqual([404, 'Not Found'])
      expect([after.status, after.body]).toEqual([200, DATA['a.json']])
    },
  ],
  [
    'M2',
    'header entries: an absent header is no miss there (the later entry wins the tie), a miss here (the entry with fewer misses wins)',
    async () => {
      const [before, after] = await both('/v1/headers', { headers: { 'x-a': '1' } })
      expect(before.body).toBe(DATA['b.json'])
      expect(after.body).toBe(DATA['a.json'])
      // With every header present both agree.
      const [allBefore, allAfter] = await both('/v1/headers', { headers: { 'x-a': '1', 'x-c': '1' } })
      expect([allBefore.body, allAfter.body]).toEqual([DATA['b.json'], DATA['b.json']])
    },
  ],
  [
    'M3',
    '${context} in a .txt file: sent as written there, replaced here (in every text file)',
    async () => {
      const [before, after] = await both('/v1/text')
      expect(before.body).toBe('served at ${context}')
      expect(after.body).toBe(`served at ${CONTEXT}`)
    },
  ],
  [
    'M4',
    'a bare status with responseHeader: the headers are dropped there, sent here',
    async () => {
      const [before, after] = await both('/v1/maintenance')
      expect([before.status, before.headers.get('retry-after')]).toEqual([503, null])
      expect([after.status, after.headers.get('retry-after')]).toEqual([503, '120'])
    },
  ],
  [
    'M5',
    "a redirect: Express's text body there, an empty body here",
    async () => {
      const [before, after] = await both('/v1/moved')
      expect([before.status, before.headers.get('location'), before.body]).toEqual([302, 'http://example.com/elsewhere', 'Found. Redirecting to http://example.com/elsewhere'])
      expect([after.status, after.headers.get('location'), after.body]).toEqual([302, 'http://example.com/elsewhere', ''])
    },
  ],
  [
    'M6',
    'array and nested params, urlencoded and JSON bodies: the query is parsed by qs there, read literally here; objects, dotted names and numbers match here only',
    async () => {
      // `tag[]=x` and `tag=x,y` in a query are the param tag there, other names (or one value) here.
      for (const query of ['?tag[]=x&tag[]=y', '?tag=x,y']) {
        const [before, after] = await both('/v1/tags' + query)
        expect([query, before.body, after.body]).toEqual([query, DATA['a.json'], DATA['default.json']])
      }
      // Repeated params agree.
      const [repeated, repeatedHere] = await both('/v1/tags?tag=x&tag=y')
      expect([repeated.body, repeatedHere.body]).toEqual([DATA['a.json'], DATA['a.json']])
      // An object value compares deeply here; there it never matches.
      const [object, objectHere] = await both('/v1/nested', json({ filter: { status: 'open' } }))
      expect([object.body, objectHere.body]).toEqual([DATA['default.json'], DATA['a.json']])
      // A dotted param matches a literal "a.b" field here (urlencoded or JSON), after trying the path.
      for (const init of [form('a.b=1'), json({ 'a.b': '1' })]) {
        const [dotted, dottedHere] = await both('/v1/dotted', init)
        expect([dotted.body, dottedHere.body]).toEqual([DATA['default.json'], DATA['a.json']])
      }
      // A bracketed urlencoded field is the path a.b in both.
      const [bracket, bracketHere] = await both('/v1/dotted', form('a[b]=1'))
      expect([bracket.body, bracketHere.body]).toEqual([DATA['a.json'], DATA['a.json']])
      // A JSON number against a text param: a match here (scalars compare as text), none there.
      const [number, numberHere] = await both('/v1/numbers', json({ page: 2 }))
      expect([number.body, numberHere.body]).toEqual([DATA['default.json'], DATA['a.json']])
    },
  ],
]

describe('@availity/mock-server and mockyard on the same routes file', () => {
  it.each(cases.map(([marker, title, run]) => [`${marker}: ${title}`, run] as const))('%s', async (_title, run) => {
    await run()
  })

  it('the migration guide lists exactly these differences (one marker each)', () => {
    const listed = [...GUIDE.matchAll(/<a id="(M\d+)"><\/a>/g)].map((match) => match[1])
    expect(listed).toEqual(cases.map(([marker]) => marker))
  })
})
