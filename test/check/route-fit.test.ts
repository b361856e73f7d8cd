/**
 * `check --openapi` finds a route's operation by its key's segments (docs/check.md): an escaped
 * segment (`\:name`, `\*`; docs/behaviour.md, "Route table") is the literal it stands for.
 */
import { describe, expect, it } from 'vitest'
import { fit } from '../../src/check/check-openapi.js'

describe('how a route key fits a path of the document', () => {
  it('an escaped colon is the literal segment, which a parameter would not fit', () => {
    expect(fit(['v1', 'files', '\\:name'], ['v1', 'files', ':name'])).toBe(9)
    expect(fit(['v1', 'files', ':name'], ['v1', 'files', ':name'])).toBeUndefined()
  })

  it('an escaped colon fits a template as any literal does, below a parameter', () => {
    expect(fit(['v1', 'files', '\\:name'], ['v1', 'files', '{}'])).toBe(7)
    expect(fit(['v1', 'files', ':name'], ['v1', 'files', '{}'])).toBe(8)
  })

  it('an escaped star is the literal segment, not the rest of the path', () => {
    expect(fit(['v1', 'glob', '\\*'], ['v1', 'glob', '*'])).toBe(9)
    expect(fit(['v1', 'glob', '\\*'], ['v1', 'glob', 'a', 'b'])).toBeUndefined()
    expect(fit(['v1', 'glob', '*'], ['v1', 'glob', 'a', 'b'])).toBe(6)
  })

  it('a percent-encoded literal (a request path, a route key) fits the text it encodes, in any case', () => {
    expect(fit(['caf%c3%a9', 'menu'], ['café', 'menu'])).toBe(6)
    expect(fit(['caf%c3%a9', 'menu'], ['caf%c3%a9', 'menu'])).toBe(6)
    expect(fit(['%c3%89t%c3%a9'], ['été'])).toBe(3)
    expect(fit(['cafe', 'menu'], ['café', 'menu'])).toBeUndefined()
  })
})
