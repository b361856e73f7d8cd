/**
 * `mockyard check` on documents of thousands of operations (GitHub's has about 1,000 paths, and
 * generated documents many more): finding routes of one shape and fitting routes to operations
 * take time in proportion to the routes, not to their square (src/check/find-dead-config.ts,
 * src/check/check-openapi.ts).
 */
import { describe, expect, it } from 'vitest'
import { findDeadConfig } from '../../src/check/find-dead-config.js'
import { fit, operationsOf, patternIndex } from '../../src/check/check-openapi.js'

describe('check at scale', () => {
  it('20,000 route keys are compared by shape in well under a second, and a pair of one shape is still found', () => {
    // Keys of one path in one file are a load warning (the first answers); across files the later file's takes the requests.
    const earlier = Array.from({ length: 20_000 }, (_, i) => ({ key: `api/res${i}/:id`, file: 'routes.json' }))
    const routes: Record<string, unknown> = { 'api/res7/:name': { get: { status: 200 } } }
    const started = performance.now()
    const found = findDeadConfig(routes, 'later.json', earlier)
    // Comparing every pair (as before) takes minutes here.
    expect(performance.now() - started).toBeLessThan(3_000)
    expect(found.map((problem) => problem.pointer)).toEqual(['/api~1res7~1:id'])
  })

  it('the pattern index offers every operation a route or request fits, as fitting each one would', () => {
    const paths: Record<string, unknown> = {}
    for (const path of ['/users', '/users/{id}', '/users/{id}.json', '/users.json', '/files/{name}.{ext}', '/a/{x}/b', '/a/{y}/c', '/{any}']) paths[path] = { get: { responses: {} } }
    const operations = operationsOf({ servers: [{ url: '/v1' }, { url: '/' }], paths })
    const lookup = patternIndex(operations)
    for (const route of ['v1/users', 'users', 'v1/users/:id', 'v1/users/5.json', 'users/5', 'v1/files/a.b', 'v1/a/:x/b', 'a/1/c', 'v1/*', '*', 'v1/USERS', 'x', 'v1/nothing/here']) {
      const segments = route.toLowerCase().split('/')
      const byIndex = lookup(segments).filter(({ operation, pattern }) => fit(segments, operation.patterns[pattern]!) !== undefined).map(({ operation, pattern }) => `${operation.path} ${pattern}`)
      const byScan = operations.flatMap((operation) => operation.patterns.flatMap((pattern, index) => (fit(segments, pattern) === undefined ? [] : [`${operation.path} ${index}`])))
      expect([route, byIndex.sort()]).toEqual([route, byScan.sort()])
    }
  })
})
