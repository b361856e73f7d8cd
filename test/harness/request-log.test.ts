import { describe, expect, it } from 'vitest'
import { BODY_LIMIT, createRequestLog, type RequestInput, type RequestRecord } from '../../src/harness/request-log.js'
import { CHUNK_BYTES, CLEARED, HAS_BODY, HAS_ENTRY, LogSlots, MATCHED, type SlotFacts } from '../../src/harness/log-slots.js'

const input = (fields: Partial<RequestInput> = {}): RequestInput => ({
  time: Date.UTC(2026, 10, 22, 12, 0, 0),
  method: 'GET',
  url: 'http://api.test/v1/users',
  headers: {},
  body: null,
  session: '',
  durationMs: 1.5,
  status: 200,
  matched: true,
  ...fields,
})

describe('request log', () => {
  it('keeps every fact of a request, built when read', () => {
    const log = createRequestLog()
    log.add(
      input({
        method: 'POST',
        url: 'http://api.test/v1/claims?x=1',
        headers: ['Content-Type', 'application/json', 'Authorization', 'Bearer secret', 'X-Tag', 'a', 'x-tag', 'b'],
        body: new TextEncoder().encode('{"é":1}'),
        session: 'test-7',
        route: 'v1/claims',
        entry: 'post[2].response[1]',
        file: 'claims.json',
        status: 201,
      }),
    )
    expect(log.list()).toEqual([
      {
        id: 1,
        time: '2026-11-22T12:00:00.000Z',
        method: 'POST',
        url: 'http://api.test/v1/claims?x=1',
        headers: { 'content-type': 'application/json', authorization: '<redacted>', 'x-tag': 'a, b' },
        body: '{"é":1}',
        route: 'v1/claims',
        entry: 'post[2].response[1]',
        file: 'claims.json',
        status: 201,
        matched: true,
        session: 'test-7',
        durationMs: 1.5,
      },
    ])
  })

  it('takes headers as a record, as pairs, as a Headers object or from a function', () => {
    const log = createRequestLog()
    log.add(input({ headers: { Accept: 'text/html' } }))
    log.add(input({ headers: [['accept', 'application/json']] as Array<[string, string]> }))
    log.add(input({ headers: new Headers({ accept: 'text/xml' }) }))
    log.add(input({ headers: () => ['ACCEPT', 'text/csv'] }))
    expect(log.list().map((r) => r.headers)).toEqual([{ accept: 'text/html' }, { accept: 'application/json' }, { accept: 'text/xml' }, { accept: 'text/csv' }])
  })

  it('keeps each record’s own headers when a client sends the same list again, or changes a list it gave before', () => {
    const log = createRequestLog({ limit: 50 })
    const same = ['Host', 'localhost:3000', 'Accept', '*/*', 'X-Name', 'zoë']
    // The same headers in turn, in fresh lists (as node gives them), across a chunk of the byte store.
    const long = 'v'.repeat(30_000)
    for (let i = 0; i < 6; i++) log.add(input({ headers: [...same], body: i % 2 ? long : null }))
    // A list changed after it was given: the log kept what it said then.
    const changed = [...same]
    log.add(input({ headers: changed }))
    changed[5] = 'changed'
    log.add(input({ headers: changed }))
    changed[5] = 'again'
    log.add(input({ headers: [...changed] }))
    log.add(input({ headers: [...same] }))
    log.add(input({ headers: [] }))
    log.add(input({ headers: [] }))
    log.add(input({ headers: { Accept: 'text/html' } }))
    log.add(input({ headers: [...same] }))
    const headers = { host: 'localhost:3000', accept: '*/*', 'x-name': 'zoë' }
    expect(log.list().map((r) => r.headers)).toEqual([
      ...Array.from({ length: 7 }, () => headers),
      { ...headers, 'x-name': 'changed' },
      { ...headers, 'x-name': 'again' },
      headers,
      {},
      {},
      { accept: 'text/html' },
      headers,
    ])
    expect(log.list().map((r) => r.body?.length ?? 0)).toEqual([0, 30_000, 0, 30_000, 0, 30_000, 0, 0, 0, 0, 0, 0, 0, 0])
  })

  it('keeps each record’s own text when the same request comes again, or one part of it changes', () => {
    const log = createRequestLog({ limit: 100 })
    const headers = () => ['Host', 'localhost:3000', 'Accept', '*/*']
    const base = { method: 'GET', url: 'http://localhost:3000/v1/users?page=1', session: 's1', entry: 'get[0]', headers: headers() }
    const sent = () => ({ 'content-type': 'application/json', 'x-count': 2 }) as unknown as Record<string, string>
    // The surface adds to the response headers after the record is added (node's content-length): the record keeps what it was given.
    const first = sent()
    log.add(input({ ...base, responseHeaders: first }))
    first['content-length'] = '10'
    // The same request again in fresh lists, then one part changed at a time, twice, and the unchanged request again.
    const variants: Array<Partial<RequestInput>> = [
      { url: 'http://localhost:3000/v1/users?page=2' },
      { method: 'POST' },
      { session: 's2' },
      { entry: 'get[1]' },
      { entry: undefined },
      { responseHeaders: { 'content-type': 'application/json', 'x-count': '3' } },
      { responseHeaders: { 'x-count': '2', 'content-type': 'application/json' } },
      { responseHeaders: undefined },
      { responseHeaders: [['content-type', 'application/json'], ['x-count', '2']] as Array<[string, string]> },
      { headers: ['Host', 'localhost:3000', 'Accept', 'text/html'] },
      { headers: new Headers({ host: 'localhost:3000', accept: '*/*' }) },
    ]
    const expected = (variant: Partial<RequestInput>) => {
      const fields = { ...base, responseHeaders: sent() as RequestInput['responseHeaders'], ...variant }
      const flat = Array.isArray(fields.headers) ? (fields.headers as string[]) : [...(fields.headers as Headers)].flat()
      const responsePairs = fields.responseHeaders === undefined ? undefined : Array.isArray(fields.responseHeaders) ? (fields.responseHeaders as Array<[string, string]>) : Object.entries(fields.responseHeaders as Record<string, string>)
      return {
        method: fields.method,
        url: fields.url,
        session: fields.session,
        entry: fields.entry,
        headers: Object.fromEntries(Array.from({ length: flat.length / 2 }, (_, i) => [flat[2 * i]!.toLowerCase(), flat[2 * i + 1]])),
        responseHeaders: responsePairs === undefined ? undefined : Object.fromEntries(responsePairs.map(([name, value]) => [name, String(value)])),
      }
    }
    const wanted = [expected({})]
    // Each variant comes after the unchanged request, so that one part at a time differs from the record before.
    for (const variant of [{}, ...variants.flatMap((variant) => [variant, variant, {}])]) {
      log.add(input({ ...base, headers: headers(), responseHeaders: sent(), ...variant }))
      wanted.push(expected(variant))
    }
    const shown = log.list().map(({ method, url, session, entry, headers, responseHeaders }) => ({ method, url, session, entry, headers, responseHeaders }))
    expect(shown).toEqual(wanted)
  })

  it('keeps each record’s own facts when the same request comes again and again (it shares the bytes of the record before)', () => {
    const log = createRequestLog({ limit: 5 })
    // Runs of one request, with one fact changed now and then; long bodies turn the byte store over.
    const requestOf = (i: number) => {
      const run = Math.floor(i / 7)
      const body = run % 5 === 4 ? 'y'.repeat(5000 + run) : run % 3 === 0 ? null : `{"n":${run % 4}}`
      return input({
        method: 'POST',
        url: `http://api.test/v1/items?run=${run % 2}`,
        body: i % 11 === 10 ? '{"n":9}' : body,
        time: 1_000_000 + i,
        durationMs: i / 100,
        status: 200 + (i % 3),
        matched: i % 13 !== 12,
        route: i % 19 === 18 ? 'v1/other' : 'v1/items',
        file: i % 17 === 16 ? 'other.json' : 'items.json',
        entry: 'post[0]',
      })
    }
    const expected = (i: number) => {
      const sent = requestOf(i)
      return { id: i + 1, time: new Date(sent.time as number).toISOString(), durationMs: sent.durationMs, status: sent.status, matched: sent.matched, route: sent.route, file: sent.file, url: sent.url, body: sent.body }
    }
    const shown = (record: RequestRecord) => ({ id: record.id, time: record.time, durationMs: record.durationMs, status: record.status, matched: record.matched, route: record.route, file: record.file, url: record.url, body: record.body })
    let live: ReturnType<typeof expected>[] = []
    for (let i = 0; i < 2000; i++) {
      log.add(requestOf(i))
      live = [...live, expected(i)].slice(-5)
      // Read now and then: a record built when read is built again once its slot changes.
      if (i % 3 === 0) expect(log.list().map(shown)).toEqual(live)
      // A reset between two requests alike: the one after it is written whole, and read as sent.
      if (i % 50 === 49) {
        log.clear()
        live = []
        expect(log.list()).toEqual([])
      }
    }
    expect(log.list().map(shown)).toEqual(live)
  })

  it('keeps each body as sent: the same bytes again (the same object or a copy), and other bytes of the same length', () => {
    const log = createRequestLog()
    const encode = (text: string) => new TextEncoder().encode(text)
    const one = encode('{"n":1}')
    for (const body of [one, one, encode('{"n":1}'), encode('{"n":2}'), encode('{"n":2}'), one, null, null, encode('')]) log.add(input({ method: 'POST', body }))
    expect(log.list().map((record) => record.body)).toEqual(['{"n":1}', '{"n":1}', '{"n":1}', '{"n":2}', '{"n":2}', '{"n":1}', null, null, null])
  })

  it('keeps no entry, route or file it was not given, and a null body as null', () => {
    const log = createRequestLog()
    log.add(input({ time: '2026-01-02T03:04:05.678Z', matched: false, status: 0 }))
    const [record] = log.list()
    expect(record).not.toHaveProperty('entry')
    expect(record).not.toHaveProperty('route')
    expect(record).not.toHaveProperty('file')
    expect(record!.body).toBeNull()
    expect(record!.time).toBe('2026-01-02T03:04:05.678Z')
    expect(record!.matched).toBe(false)
  })

  it('keeps the newest `limit` records, oldest first', () => {
    const log = createRequestLog({ limit: 3 })
    for (let i = 1; i <= 10; i++) log.add(input({ url: `http://api.test/r${i}` }))
    expect(log.list().map((r) => [r.id, r.url])).toEqual([
      [8, 'http://api.test/r8'],
      [9, 'http://api.test/r9'],
      [10, 'http://api.test/r10'],
    ])
  })

  it('stays correct across many records of mixed sizes (its byte store is reused)', () => {
    const log = createRequestLog({ limit: 7 })
    const bodyOf = (i: number) => 'x'.repeat((i * 7919) % (i % 5 === 0 ? 40_000 : 900))
    for (let i = 1; i <= 3000; i++) {
      log.add(input({ method: i % 2 ? 'GET' : 'POST', url: `http://api.test/v1/items/${i}?q=${'ü'.repeat(i % 13)}`, body: bodyOf(i), session: `s${i % 3}` }))
      if (i % 97 === 0) {
        const records = log.list()
        expect(records.map((r) => r.id)).toEqual(Array.from({ length: 7 }, (_, k) => i - 6 + k))
        for (const record of records) {
          expect(record.url).toBe(`http://api.test/v1/items/${record.id}?q=${'ü'.repeat(record.id % 13)}`)
          expect(record.body).toBe(bodyOf(record.id) === '' ? null : bodyOf(record.id))
          expect(record.session).toBe(`s${record.id % 3}`)
        }
      }
    }
  })

  it(`keeps the first ${BODY_LIMIT} bytes of a body and counts the rest`, () => {
    const log = createRequestLog()
    log.add(input({ method: 'POST', body: new Uint8Array(BODY_LIMIT + 10).fill(97) }))
    expect(log.list()[0]!.body).toBe(`${'a'.repeat(BODY_LIMIT)}… [10 more bytes]`)
  })

  it('counts one byte past the limit as "1 more byte"', () => {
    const log = createRequestLog()
    log.add(input({ method: 'POST', body: new Uint8Array(BODY_LIMIT + 1).fill(97) }))
    expect(log.list()[0]!.body).toBe(`${'a'.repeat(BODY_LIMIT)}… [1 more byte]`)
  })

  it('tells a waiter at once, with the record as added (its final status)', async () => {
    const log = createRequestLog()
    const seen: number[] = []
    const waiting = log.waitFor((r) => r.status === 404).then((r) => seen.push(r.id))
    log.add(input({ status: 404, matched: false }))
    // Resolved within the same turn: no timer between the record and its waiter.
    await Promise.resolve()
    await Promise.resolve()
    expect(seen).toEqual([1])
    await waiting
  })

  it('forgets everything, or one session', () => {
    const log = createRequestLog()
    log.add(input({ session: 'a' }))
    log.add(input({ session: 'b' }))
    log.add(input({ session: 'a' }))
    log.clear('a')
    expect(log.list().map((r) => [r.id, r.session])).toEqual([[2, 'b']])
    log.clear()
    expect(log.list()).toEqual([])
    log.add(input({ session: 'c' }))
    expect(log.list().map((r) => r.id)).toEqual([4])
  })

  it('filters by method, path, route and session', () => {
    const log = createRequestLog()
    log.add(input({ method: 'GET', url: 'http://api.test/v1/users?page=2', route: 'v1/users' }))
    log.add(input({ method: 'POST', url: 'http://api.test/v1/claims', route: 'v1/claims', session: 's1' }))
    expect(log.list({ method: 'post' }).map((r) => r.id)).toEqual([2])
    expect(log.list({ path: '/v1/users' }).map((r) => r.id)).toEqual([1])
    expect(log.list({ path: /claims$/ }).map((r) => r.id)).toEqual([2])
    expect(log.list({ route: 'v1/users' }).map((r) => r.id)).toEqual([1])
    expect(log.list({ session: 's1' }).map((r) => r.id)).toEqual([2])
  })

  it('waitFor resolves with a record logged before or after, and rejects on timeout', async () => {
    const log = createRequestLog()
    log.add(input({ url: 'http://api.test/first' }))
    await expect(log.waitFor((r) => r.url.endsWith('/first'))).resolves.toMatchObject({ id: 1 })
    const later = log.waitFor((r) => r.url.endsWith('/later'), { timeout: 2000 })
    log.add(input({ url: 'http://api.test/later', status: 202 }))
    await expect(later).resolves.toMatchObject({ id: 2, status: 202 })
    await expect(log.waitFor(() => false, { timeout: 20 })).rejects.toThrow(/no request fitting the predicate arrived within 20 ms \(2 recorded\)/)
  })

  it('a predicate that throws rejects its own waiter: the request is recorded and the other waiters are told', async () => {
    const log = createRequestLog()
    const broken = log.waitFor((r) => (JSON.parse(r.body ?? '') as { x: number }).x === 1, { timeout: 2000 })
    const other = log.waitFor((r) => r.url.endsWith('/later'), { timeout: 2000 })
    expect(() => log.add(input({ url: 'http://api.test/later' }))).not.toThrow()
    await expect(broken).rejects.toThrow(SyntaxError)
    await expect(other).resolves.toMatchObject({ id: 1 })
    // Over the records already there, too: a rejection, not a throw.
    await expect(log.waitFor(() => { throw new RangeError('bad predicate') })).rejects.toThrow('bad predicate')
  })

  it('a reset of the whole log rejects the waiters still waiting: none judges the requests after it', async () => {
    const log = createRequestLog()
    let judged = 0
    const left = log.waitFor(() => (judged++, false), { timeout: 60_000 })
    log.clear()
    await expect(left).rejects.toThrow('[mockyard] the request log was reset before a request fitting the predicate arrived. Await waitForRequest() in the test that sends the request.')
    log.add(input({ url: 'http://api.test/next-test' }))
    expect(judged).toBe(0)
  })
})

describe('request log: what the dashboard reads', () => {
  it('keeps response headers (redacted) and an explanation computed once, when first read', () => {
    const log = createRequestLog()
    let explained = 0
    log.add(input({ responseHeaders: { 'Content-Type': 'application/json', 'Set-Cookie': 'sid=1' } }))
    log.add(input({ status: 404, matched: false, responseHeaders: { 'content-type': 'text/html; charset=utf-8' }, explanation: () => `no route answers GET /x (${++explained})` }))
    expect(explained).toBe(0)
    const [answered, unmatched] = log.list()
    expect(answered!.responseHeaders).toEqual({ 'content-type': 'application/json', 'set-cookie': '<redacted>' })
    expect(answered!.explanation).toBeUndefined()
    expect(unmatched).toMatchObject({ status: 404, matched: false, explanation: 'no route answers GET /x (1)', responseHeaders: { 'content-type': 'text/html; charset=utf-8' } })
    expect(log.get(2)!.explanation).toBe('no route answers GET /x (1)')
    expect(explained).toBe(1)
  })

  it('reads by id and after an id, and counts clears', () => {
    const log = createRequestLog({ limit: 3 })
    for (let i = 0; i < 5; i++) log.add(input({ url: `http://api.test/${i}`, session: i % 2 ? 'a' : 'b' }))
    expect(log.lastId).toBe(5)
    expect(log.get(1)).toBeUndefined() // pushed out by newer records
    expect(log.get(4)!.url).toBe('http://api.test/3')
    expect(log.since(0).map((r) => r.id)).toEqual([3, 4, 5])
    expect(log.since(4).map((r) => r.id)).toEqual([5])
    expect(log.clears).toBe(0)
    log.clear('a')
    expect(log.clears).toBe(1)
    expect(log.since(0).map((r) => r.id)).toEqual([3, 5])
    expect(log.get(4)).toBeUndefined()
  })
})

describe('the log slot store', () => {
  const facts = (fields: Partial<SlotFacts> = {}): SlotFacts => ({
    id: 1,
    time: 0,
    durationMs: 0,
    status: 200,
    flags: 0,
    text: '',
    body: null,
    kept: 0,
    route: undefined,
    file: undefined,
    explanation: undefined,
    ...fields,
  })

  it('names its flag bits, one bit each', () => {
    const bits = [MATCHED, CLEARED, HAS_ENTRY, HAS_BODY]
    expect(new Set(bits).size).toBe(4)
    for (const bit of bits) expect(bit & (bit - 1)).toBe(0)
    const slots = new LogSlots(4)
    slots.write(facts({ id: 6, flags: MATCHED | HAS_BODY }), 6)
    expect([MATCHED, CLEARED, HAS_ENTRY, HAS_BODY].map((flag) => slots.has(2, flag))).toEqual([true, false, false, true])
  })

  it('keeps text and the kept part of a body per slot, across chunks', () => {
    const slots = new LogSlots(2)
    const big = new TextEncoder().encode('b'.repeat(CHUNK_BYTES))
    for (let id = 1; id <= 50; id++) {
      slots.write(facts({ id, text: `GET\0/${id}\0é`, body: big, kept: 1000 + id }), Math.max(1, id - 1))
      expect(slots.text(id % 2)).toBe(`GET\0/${id}\0é`)
      expect(slots.body(id % 2)).toEqual({ text: 'b'.repeat(1000 + id), more: CHUNK_BYTES - 1000 - id })
      if (id > 1) expect(slots.text((id - 1) % 2)).toBe(`GET\0/${id - 1}\0é`)
    }
  })
})
