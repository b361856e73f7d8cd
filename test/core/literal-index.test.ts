import { describe, expect, it } from 'vitest'
import { compileRoutes, memoryFiles, type RoutesConfig } from 'mockyard'
import type { CompiledMethod } from '../../src/core/compile-routes.js'
import { indexLiterals } from '../../src/core/literal-index.js'
import { matchEntry, type RequestValues } from '../../src/core/match-entry.js'
import { parseQuery } from '../../src/core/parse-request.js'
import { random } from '../support/random.js'

const KEYS = ['a', 'b', 'x.y']
const SCALARS = ['1', '2', '3', 1, 2, true, 'true', null, 'null', '']

function generate(next: () => number) {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)]!
  const condition = (): unknown => {
    const roll = next()
    if (roll < 0.6) return pick(SCALARS)
    if (roll < 0.75) return [pick(SCALARS), pick(SCALARS)]
    if (roll < 0.85) return { pattern: pick(['^[12]$', '^t', '3']) }
    return { z: pick(SCALARS) }
  }
  const entries = Array.from({ length: 1 + Math.floor(next() * 14) }, (_, index) => {
    const params: Record<string, unknown> = {}
    for (const key of KEYS) if (next() < 0.6) params[key] = condition()
    const entry: Record<string, unknown> = { status: 200 + index, params }
    if (next() < 0.1) entry.headers = { 'x-kind': pick(['a', 'b']) }
    return entry
  })
  const value = (): unknown => {
    const roll = next()
    if (roll < 0.7) return pick(SCALARS)
    if (roll < 0.85) return [pick(SCALARS), pick(SCALARS)]
    return { z: pick(SCALARS) }
  }
  const requests = Array.from({ length: 20 }, () => {
    const query = new URLSearchParams()
    const body: Record<string, unknown> = {}
    for (const key of KEYS) {
      if (next() < 0.3) continue
      if (next() < 0.5) {
        const v = value()
        for (const item of Array.isArray(v) ? v : [v]) query.append(key, typeof item === 'object' ? JSON.stringify(item) : String(item))
      } else if (key === 'x.y') body.x = { y: value() }
      else body[key] = value()
    }
    return { query: query.toString(), body: next() < 0.5 ? body : undefined, kind: pick(['a', 'b', null]) }
  })
  return { routes: { 'v1/r': { status: 299, get: entries } } as unknown as RoutesConfig, requests }
}

function methodOf(routes: RoutesConfig): CompiledMethod {
  const table = compileRoutes([{ file: 'routes.json', routes, files: memoryFiles({}) }])
  return table.lookup('/v1/r')!.route.methods.get('GET')!
}

describe('the literal index', () => {
  it('never changes the entry a request gets (2,000 seeded configs, 20 requests each)', () => {
    const next = random(21)
    let pruned = 0
    for (let config = 0; config < 2000; config++) {
      const { routes, requests } = generate(next)
      const compiled = methodOf(routes)
      const scan: CompiledMethod = { default: compiled.default, conditionals: compiled.conditionals }
      const index = indexLiterals(compiled.conditionals, 0)
      const indexed: CompiledMethod = { ...scan, index }
      for (const request of requests) {
        const values = (): RequestValues => ({
          query: parseQuery(request.query ? `?${request.query}` : ''),
          body: request.body,
          headers: { get: (name) => (name === 'x-kind' ? request.kind : null) },
        })
        const expected = matchEntry(scan, values())
        expect(matchEntry(indexed, values()), `${JSON.stringify(routes)} ?${request.query} ${JSON.stringify(request.body)}`).toBe(expected)
        if (index) pruned++
      }
    }
    // The comparison is worth something only if the index was used often.
    expect(pruned).toBeGreaterThan(10_000)
  })

  it('is built at compile time for a method with many entries, on the key that tells them apart', () => {
    const get = Array.from({ length: 10 }, (_, index) => ({ status: 200 + index, params: { status: 'open', payerId: `P${index}` } }))
    const compiled = methodOf({ 'v1/r': { get } })
    expect(compiled.index?.key).toBe('payerId')
    expect(compiled.index?.byText.get('P3')).toEqual([3])
    expect(compiled.index?.rest).toEqual([])
  })

  it('is left out for a few entries, or when no key has two different literal values', () => {
    expect(methodOf({ 'v1/r': { get: [{ status: 201, params: { a: '1' } }, { status: 202, params: { a: '2' } }] } }).index).toBeUndefined()
    const same = Array.from({ length: 10 }, (_, index) => ({ status: 200 + index, params: { status: 'open', page: { pattern: `^${index}$` } } }))
    expect(methodOf({ 'v1/r': { get: same } }).index).toBeUndefined()
  })
})
