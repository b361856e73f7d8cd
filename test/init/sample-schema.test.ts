/**
 * The schema sampler of `mockyard init --openapi` on what a document can hold that the fixture
 * documents of init-openapi.test.ts do not: simple patterns, bounds, and schemas whose expansion
 * would never end or would grow past any size (docs/behaviour.md, "OpenAPI: mocks from a contract").
 */
import { describe, expect, it } from 'vitest'
import { sampleSchema, stringForPattern } from '../../src/init/sample-schema.js'

describe('sampleSchema', () => {
  it('makes strings that simple patterns match, and leaves the others to the plain sample', () => {
    for (const pattern of ['^[A-Z]{3}-\\d{4}$', '^\\+?[1-9]\\d{1,14}$', '^(draft|live)-[a-f0-9]{8}$', '^[^@\\s]+@example\\.(com|org)$', '^v\\d+(\\.\\d+){2}$']) {
      const made = stringForPattern(pattern)
      expect([pattern, new RegExp(pattern, 'u').test(made ?? '')]).toEqual([pattern, true])
    }
    expect(sampleSchema({ type: 'string', pattern: '^(?<=a)b$' }, { doc: {} })).toBe('string')
  })

  it('keeps to bounds: exclusive minimum, multipleOf, negative maximum, lengths', () => {
    expect(sampleSchema({ type: 'number', exclusiveMinimum: 0, multipleOf: 0.5 }, { doc: {} })).toBe(1)
    expect(sampleSchema({ type: 'integer', maximum: -3 }, { doc: {} })).toBe(-3)
    expect(sampleSchema({ type: 'number', minimum: 0, exclusiveMaximum: 0.5 }, { doc: {} })).toBe(0.25)
    expect(sampleSchema({ type: 'string', minLength: 10 }, { doc: {} })).toBe('stringxxxx')
    expect(sampleSchema({ type: 'string', maxLength: 3 }, { doc: {} })).toBe('str')
  })

  it('stays small for schemas that branch out at every level, and for huge minItems and minLength', () => {
    // 40 levels, each with two properties of the next: 2^40 values if expanded in full.
    const schemas: Record<string, unknown> = {}
    for (let level = 0; level < 40; level++) {
      const next = { $ref: `#/components/schemas/L${level + 1}` }
      schemas[`L${level}`] = { type: 'object', properties: { left: next, right: next } }
    }
    schemas.L40 = { type: 'string' }
    const doc = { components: { schemas } }
    const value = sampleSchema({ $ref: '#/components/schemas/L0' }, { doc })
    expect(JSON.stringify(value).length).toBeLessThan(5_000_000)
    expect(JSON.stringify(sampleSchema({ type: 'array', minItems: 1e9, items: { type: 'string', minLength: 1e9 } }, { doc: {} })).length).toBeLessThan(2_000_000)
  })

  it('gives the same value twice', () => {
    const schema = { type: 'object', properties: { a: { type: 'string', format: 'date-time' }, b: { oneOf: [{ type: 'integer' }, { type: 'boolean' }] } } }
    expect(JSON.stringify(sampleSchema(schema, { doc: {} }))).toBe(JSON.stringify(sampleSchema(schema, { doc: {} })))
  })
})
