/**
 * Benchmark fixtures: data files and routes files for every workload, written into a folder.
 *
 * Every JSON data file is written as `JSON.stringify(value, null, 2)` with no trailing newline,
 * because @availity/mock-server re-parses JSON files and sends them with Express's
 * `json spaces: 2`: written that way, all three servers send exactly the same bytes.
 *
 * Each workload has two routes files with the same routes: `*.mockyard.json` (no latency:
 * mockyard's listener runs with latency 0) and `*.availity.json` (`"latency": 1` on every route
 * and entry, since @availity/mock-server turns 0 into 200 ms).
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

/** A JSON document of at least `bytes` bytes (just over), formatted with 2-space indentation. */
export function jsonOfSize(bytes, seed = 'item') {
  const item = (i) => ({ id: i + 1, name: `${seed} ${i + 1}`, status: i % 3 === 0 ? 'open' : 'closed', amount: (i * 37) % 1000, tags: ['a', 'b'] })
  const make = (count) => JSON.stringify({ kind: seed, generated: 'mockyard bench', items: Array.from({ length: count }, (_, i) => item(i)) }, null, 2)
  // Smallest item count whose document reaches `bytes`: a bounded binary search.
  let low = 0
  let high = 1
  while (make(high).length < bytes && high < 1e7) high *= 2
  while (low < high) {
    const mid = Math.floor((low + high) / 2)
    if (make(mid).length < bytes) low = mid + 1
    else high = mid
  }
  const text = make(low)
  return text
}

function writeJson(path, value) {
  writeFileSync(path, typeof value === 'string' ? value : JSON.stringify(value, null, 2))
}

/** Adds `"latency": 1` to a route and every object entry of its method keys (Availity's copy). */
function withAvailityLatency(routes) {
  const copy = structuredClone(routes)
  for (const route of Object.values(copy)) {
    route.latency = 1
    for (const method of ['get', 'post', 'put', 'patch', 'delete', 'head']) {
      const value = route[method]
      if (Array.isArray(value)) for (const entry of value) if (entry && typeof entry === 'object') entry.latency = 1
    }
  }
  return copy
}

/** `count` literal routes `v1/resources/rN` (1-based), each with its own small data file. */
function manyRoutes(count) {
  const routes = {}
  for (let i = 1; i <= count; i++) {
    const file = `many/r${i}.json`
    routes[`v1/resources/r${i}`] = { file }
  }
  return routes
}

/**
 * Writes every fixture into `dir` and returns the workload descriptions (plain JSON, handed to
 * the server and load-generator children).
 */
export function writeFixtures(dir) {
  const data = join(dir, 'data')
  mkdirSync(join(data, 'many'), { recursive: true })

  const oneKb = jsonOfSize(1024, 'user')
  writeJson(join(data, 'w1.json'), oneKb)
  writeJson(join(data, 'w2-match.json'), jsonOfSize(1024, 'claim-37'))
  writeJson(join(data, 'w2-other.json'), jsonOfSize(1024, 'claim-other'))
  writeJson(join(data, 'w3-match.json'), jsonOfSize(1024, 'search-15'))
  writeJson(join(data, 'w3-other.json'), jsonOfSize(1024, 'search-other'))
  writeJson(join(data, 'w5.json'), jsonOfSize(1024 * 1024, 'big'))
  const MANY = 5000
  for (let i = 1; i <= MANY; i++) writeJson(join(data, `many/r${i}.json`), { id: i, name: `resource ${i}`, status: 'active' })

  /** name -> routes object (without latency) */
  const routeSets = {
    w1: { 'v1/users': { file: 'w1.json' } },
    w2: {
      'v1/claims': {
        file: 'w2-other.json',
        get: Array.from({ length: 50 }, (_, index) => ({
          file: index + 1 === 37 ? 'w2-match.json' : 'w2-other.json',
          params: { status: 'open', payerId: `P${index + 1}`, page: '1' },
        })),
      },
    },
    w3: {
      'v1/claims/search': {
        file: 'w3-other.json',
        post: Array.from({ length: 20 }, (_, index) => ({
          file: index + 1 === 15 ? 'w3-match.json' : 'w3-other.json',
          params: { 'member.address.state': `S${index + 1}`, 'claim.type': 'medical' },
        })),
      },
    },
    w4: manyRoutes(1000),
    w4small: manyRoutes(10),
    w4large: manyRoutes(MANY),
    w5: { 'v1/big': { file: 'w5.json' } },
  }
  const routeFiles = {}
  for (const [name, routes] of Object.entries(routeSets)) {
    const mockyard = join(dir, `${name}.mockyard.json`)
    const availity = join(dir, `${name}.availity.json`)
    writeJson(mockyard, routes)
    writeJson(availity, withAvailityLatency(routes))
    routeFiles[name] = { mockyard, availity }
  }

  const w3Body = JSON.stringify({
    member: { id: 'M0001', name: 'Pat Doe', address: { street: '1 Main St', city: 'Springfield', state: 'S15', zip: '12345' } },
    claim: { type: 'medical', amount: 120, lines: [{ code: '99213', units: 1 }, { code: '85025', units: 2 }] },
  })

  const base = { data, method: 'GET', headers: {}, body: null, contentType: 'application/json; charset=utf-8' }
  /** id -> workload. `expected`: the data file whose bytes the request must get back. */
  const workloads = {
    W1: { ...base, id: 'W1', title: 'GET one route, 1 KB JSON file', routes: routeFiles.w1, path: '/v1/users', expected: join(data, 'w1.json') },
    W2: {
      ...base,
      id: 'W2',
      title: 'GET, 50 alternatives scored by query, match at #37',
      routes: routeFiles.w2,
      path: '/v1/claims?status=open&payerId=P37&page=1',
      expected: join(data, 'w2-match.json'),
    },
    W3: {
      ...base,
      id: 'W3',
      title: 'POST JSON, 20 alternatives by dotted body path, match at #15',
      routes: routeFiles.w3,
      method: 'POST',
      path: '/v1/claims/search',
      headers: { 'content-type': 'application/json' },
      body: w3Body,
      expected: join(data, 'w3-match.json'),
    },
    W4: {
      ...base,
      id: 'W4',
      title: '1,000 routes: start to first answer; one request (sequential)',
      routes: routeFiles.w4,
      path: '/v1/resources/r777',
      expected: join(data, 'many/r777.json'),
      bareRoutes: true,
    },
    'W4-10': {
      ...base,
      id: 'W4-10',
      title: 'GET under load, 10 routes (request #8)',
      routes: routeFiles.w4small,
      path: '/v1/resources/r8',
      expected: join(data, 'many/r8.json'),
      bareRoutes: true,
    },
    'W4-5000': {
      ...base,
      id: 'W4-5000',
      title: 'GET under load, 5,000 routes (request #3,885)',
      routes: routeFiles.w4large,
      path: '/v1/resources/r3885',
      expected: join(data, 'many/r3885.json'),
      bareRoutes: true,
    },
    W5: { ...base, id: 'W5', title: 'GET a 1 MB JSON file', routes: routeFiles.w5, path: '/v1/big', expected: join(data, 'w5.json') },
  }
  writeFileSync(join(dir, 'workloads.json'), JSON.stringify(workloads, null, 2))
  return workloads
}
