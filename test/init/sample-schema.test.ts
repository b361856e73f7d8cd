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

  it('never cuts a formatted value into one that is not of its format: a shorter value of the format, else the usual one whole', () => {
    expect(sampleSchema({ type: 'string', format: 'email', maxLength: 10 }, { doc: {} })).toBe('a@b.co')
    expect(sampleSchema({ type: 'string', format: 'uri', maxLength: 12 }, { doc: {} })).toBe('https://a.co')
    expect(sampleSchema({ type: 'string', format: 'uri', maxLength: 5 }, { doc: {} })).toBe('a:b')
    expect(sampleSchema({ type: 'string', format: 'hostname', maxLength: 2 }, { doc: {} })).toBe('a')
    // No uuid is shorter: no value fits the schema, and a cut one would break the format too.
    expect(sampleSchema({ type: 'string', format: 'uuid', maxLength: 8 }, { doc: {} })).toBe('3fa85f64-5717-4562-b3fc-2c963f66afa6')
    // A format no validator checks is text like any other.
    expect(sampleSchema({ type: 'string', format: 'password', maxLength: 4 }, { doc: {} })).toBe('pass')
  })

  it("leaves out an optional property that an allOf part's additionalProperties: false refuses; a required one stays", () => {
    const strict = { type: 'object', additionalProperties: false, properties: { a: { type: 'string' } }, patternProperties: { '^x-': { type: 'string' } } }
    expect(sampleSchema({ allOf: [strict, { type: 'object', properties: { b: { type: 'string' }, 'x-c': { type: 'string' } } }] }, { doc: {} })).toEqual({ a: 'string', 'x-c': 'string' })
    const doc = { components: { schemas: { Strict: strict } } }
    expect(sampleSchema({ allOf: [{ $ref: '#/components/schemas/Strict' }, { properties: { b: { type: 'string' } }, required: ['b'] }] }, { doc })).toEqual({ a: 'string', b: 'string' })
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
