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
import { get } from 'node:http'
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
  // The old README's own example ("Match Headers").
  'v1/route11': { file: 'example1.json', get: [{ file: 'example2.json', headers: { b: '2' } }, { file: 'example3.json', headers: { c: '3' } }] },
  'v1/profile': { file: 'default.json', get: [{ file: 'a.json', headers: { 'X-Role': 'admin' } }] },
  'v1/empty': {
    file: 'default.json',
    get: [{ file: 'a.json', params: { status: 'open', kind: 'a' } }, { file: 'b.json', params: { status: '', kind: 'b' } }],
    post: [{ file: 'a.json', params: { status: 'open', kind: 'a' } }],
  },
  'v1/some': { file: 'default.json', get: [{ file: 'a.json', params: { tag: ['x', 'y'], kind: 'a' } }] },
  'v1/claims': { file: 'default.json', delete: [{ file: 'a.json', params: { id: '7' } }] },
  'v1/both': { file: 'a.json', url: 'http://example.com/elsewhere' },
  'v1/permanent': { url: 'http://example.com/elsewhere', status: 301 },
  'v1/see-other': { post: { url: 'http://example.com/elsewhere', status: 303 } },
  'v1/users/:id': { file: 'a.json' },
  'v1/users/me': { file: 'b.json' },
  'v1/only-get': { get: 'a.json' },
  'v1/files/*': { file: 'a.json' },
  'v1/vnd': { file: 'default.json', post: [{ file: 'a.json', params: { kind: 'a' } }] },
  'v1/document': { file: 'document.txt' },
}

const DATA: Record<string, string> = {
  'a.json': '{"file":"a.json"}',
  'b.json': '{"file":"b.json"}',
  'default.json': '{"file":"default.json"}',
  'context.txt': 'served at ${context}',
  'example1.json': '{"file":"example1.json"}',
  'example2.json': '{"file":"example2.json"}',
  'example3.json': '{"file":"example3.json"}',
  'document.txt': 'abcdefghijklmnopqrstuvwxyz'.repeat(100),
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
const multipart = (fields: Record<string, string>): RequestInit => {
  const data = new FormData()
  for (const [name, value] of Object.entries(fields)) data.append(name, value)
  return { method: 'POST', body: data }
}

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
    'header entries: an absent header is a bonus there (misses -= 1) and a name with capitals is never found; a miss here, names case-insensitive',
    async () => {
      // The old README's route11, asked with no header: example3 there (both entries get the bonus, the later wins), the default here.
      const [none, noneHere] = await both('/v1/route11')
      expect([none.body, noneHere.body]).toEqual([DATA['example3.json'], DATA['example1.json']])
      const [b, bHere] = await both('/v1/route11', { headers: { b: '2' } })
      expect([b.body, bHere.body]).toEqual([DATA['example2.json'], DATA['example2.json']])
      // "X-Role" is never found there: the entry wins whatever is sent.
      for (const role of [undefined, 'user', 'admin']) {
        const [before, after] = await both('/v1/profile', role === undefined ? {} : { headers: { 'x-role': role } })
        expect([role, before.body, after.body]).toEqual([role, DATA['a.json'], role === 'admin' ? DATA['a.json'] : DATA['default.json']])
      }
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
      // A bracketed urlencoded field is the path a.b in both; a bracketed multipart field only here.
      const [bracket, bracketHere] = await both('/v1/dotted', form('a[b]=1'))
      expect([bracket.body, bracketHere.body]).toEqual([DATA['a.json'], DATA['a.json']])
      for (const name of ['a[b]', 'a.b']) {
        const [field, fieldHere] = await both('/v1/dotted', multipart({ [name]: '1' }))
        expect([name, field.body, fieldHere.body]).toEqual([name, DATA['default.json'], DATA['a.json']])
      }
      // A JSON number against a text param: a match here (scalars compare as text), none there.
      const [number, numberHere] = await both('/v1/numbers', json({ page: 2 }))
      expect([number.body, numberHere.body]).toEqual([DATA['default.json'], DATA['a.json']])
    },
  ],
  [
    'M7',
    'an empty value (query, JSON "", null, 0 or false, urlencoded, multipart): a miss there, the entry is out here',
    async () => {
      const requests: Array<[string, RequestInit?]> = [
        ['/v1/empty?status=&kind=a'],
        ...['', null, 0, false].map((status): [string, RequestInit] => ['/v1/empty', json({ status, kind: 'a' })]),
        ['/v1/empty', form('status=&kind=a')],
        ['/v1/empty', multipart({ status: '', kind: 'a' })],
      ]
      for (const [path, init] of requests) {
        const [before, after] = await both(path, init)
        expect([path, init?.body, before.body, after.body]).toEqual([path, init?.body, DATA['a.json'], DATA['default.json']])
      }
      // An entry for the empty value is what matches it here.
      const [empty, emptyHere] = await both('/v1/empty?status=&kind=b')
      expect([empty.body, emptyHere.body]).toEqual([DATA['b.json'], DATA['b.json']])
    },
  ],
  [
    'M8',
    'an array param whose key is present with none of its values: still a candidate there, out here',
    async () => {
      const [before, after] = await both('/v1/some?tag=z&kind=a')
      expect([before.body, after.body]).toEqual([DATA['a.json'], DATA['default.json']])
    },
  ],
  [
    'M9',
    'DELETE with a JSON body and no query: the body is scored there, the query only here',
    async () => {
      const [before, after] = await both('/v1/claims', { method: 'DELETE', headers: { 'content-type': 'application/json' }, body: '{"id":"7"}' })
      expect([before.body, after.body]).toEqual([DATA['a.json'], DATA['default.json']])
      const [query, queryHere] = await both('/v1/claims?id=7', { method: 'DELETE' })
      expect([query.body, queryHere.body]).toEqual([DATA['a.json'], DATA['a.json']])
    },
  ],
  [
    'M10',
    'url with file: the file is served there, the redirect here',
    async () => {
      const [before, after] = await both('/v1/both')
      expect([before.status, before.body]).toEqual([200, DATA['a.json']])
      expect([after.status, after.headers.get('location')]).toEqual([302, 'http://example.com/elsewhere'])
    },
  ],
  [
    'M11',
    'url with a 3xx status: always 302 there, that status here',
    async () => {
      const [permanent, permanentHere] = await both('/v1/permanent')
      expect([permanent.status, permanentHere.status]).toEqual([302, 301])
      const [seeOther, seeOtherHere] = await both('/v1/see-other', { method: 'POST' })
      expect([seeOther.status, seeOtherHere.status]).toEqual([302, 303])
    },
  ],
  [
    'M12',
    'v1/users/:id written before v1/users/me: /v1/users/me is :id there, me here',
    async () => {
      const [me, meHere] = await both('/v1/users/me')
      expect([me.body, meHere.body]).toEqual([DATA['a.json'], DATA['b.json']])
      const [other, otherHere] = await both('/v1/users/42')
      expect([other.body, otherHere.body]).toEqual([DATA['a.json'], DATA['a.json']])
    },
  ],
  [
    'M13',
    'HEAD on a route with only get: 404 there, what GET answers (without its body) here',
    async () => {
      const [before, after] = await both('/v1/only-get', { method: 'HEAD' })
      expect([before.status, after.status, after.headers.get('content-length')]).toEqual([404, 200, String(DATA['a.json']!.length)])
    },
  ],
  [
    'M14',
    'numbers written as text ("status": "201", "repeat": "2"): used there, refused at load here with a message naming each',
    async () => {
      const dir = join(folder, 'text-numbers')
      mkdirSync(join(dir, 'data'), { recursive: true })
      const routes = join(dir, 'routes.json')
      writeFileSync(routes, JSON.stringify({ 'v1/created': { file: 'a.json', status: '201' }, 'v1/seq': { get: [{ params: {}, response: [{ file: 'a.json', repeat: '2' }, { file: 'b.json' }] }] } }))
      for (const name of ['a.json', 'b.json']) writeFileSync(join(dir, 'data', name), DATA[name]!)
      const textOld = await startOldServer(routes, join(dir, 'data'))
      try {
        expect((await ask(textOld.url, '/v1/created')).status).toBe(201)
        const sequence = []
        for (let i = 0; i < 3; i++) sequence.push((await ask(textOld.url, '/v1/seq')).body)
        expect(sequence).toEqual([DATA['a.json'], DATA['a.json'], DATA['b.json']])
      } finally {
        textOld.child.kill()
      }
      await expect(startMockServer({ routes, data: join(dir, 'data') })).rejects.toThrow(
        [
          '[mockyard] the configuration has 2 problems:',
          `  - ${routes}#/v1~1created/status: status must be a whole number, got "201". Write status as a number, for example 200.`,
          `  - ${routes}#/v1~1seq/get/0/response/0/repeat: repeat must be a whole number, got "2".`,
        ].join('\n'),
      )
    },
  ],
  [
    'M15',
    'a trailing * (v1/files/*) and the bare path /v1/files: no match there, a match here',
    async () => {
      const [bare, bareHere] = await both('/v1/files')
      expect([bare.status, bareHere.status, bareHere.body]).toEqual([404, 200, DATA['a.json']])
      const [deeper, deeperHere] = await both('/v1/files/x/y')
      expect([deeper.body, deeperHere.body]).toEqual([DATA['a.json'], DATA['a.json']])
    },
  ],
  [
    'M16',
    'a JSON body sent as application/vnd.api+json: ignored there, parsed and matched here',
    async () => {
      const [before, after] = await both('/v1/vnd', { method: 'POST', headers: { 'content-type': 'application/vnd.api+json' }, body: '{"kind":"a"}' })
      expect([before.body, after.body]).toEqual([DATA['default.json'], DATA['a.json']])
    },
  ],
]

describe('@availity/mock-server and mockyard on the same routes file', () => {
  it.each(cases.map(([marker, title, run]) => [`${marker}: ${title}`, run] as const))('%s', async (_title, run) => {
    await run()
  })

  it('the response headers row: ETag, gzip, Range (206), Last-Modified and Cache-Control there, none of them here', async () => {
    const [range, rangeHere] = await both('/v1/document', { headers: { range: 'bytes=0-9' } })
    expect([range.status, range.headers.get('content-range'), range.body]).toEqual([206, 'bytes 0-9/2600', 'abcdefghij'])
    expect([rangeHere.status, rangeHere.headers.get('content-range'), rangeHere.body.length]).toEqual([200, null, 2600])
    const [file, fileHere] = await both('/v1/document', { headers: { 'accept-encoding': 'gzip' } })
    const names = ['etag', 'last-modified', 'cache-control', 'accept-ranges', 'content-encoding', 'x-powered-by']
    expect(names.map((name) => [name, file.headers.get(name) !== null])).toEqual(names.map((name) => [name, true]))
    expect(file.headers.get('cache-control')).toBe('public, max-age=0')
    expect(names.map((name) => [name, fileHere.headers.get(name)])).toEqual(names.map((name) => [name, null]))
    // A revalidation with the ETag (as a browser's cache sends it; fetch() adds no-cache): 304 there.
    const etag = (await ask(old.url, '/v1/users/42')).headers.get('etag')!
    const revalidate = (base: string) =>
      new Promise<number>((resolve, reject) => get(`${base}/v1/users/42`, { headers: { 'if-none-match': etag } }, (res) => resolve(res.resume().statusCode ?? 0)).on('error', reject))
    expect([await revalidate(old.url), await revalidate(ours.url)]).toEqual([304, 200])
  })

  it('the migration guide lists exactly these differences (one marker each)', () => {
    const listed = [...GUIDE.matchAll(/<a id="(M\d+)"><\/a>/g)].map((match) => match[1])
    expect(listed).toEqual(cases.map(([marker]) => marker))
  })
})
