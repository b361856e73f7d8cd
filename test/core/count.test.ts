import { describe, expect, it } from 'vitest'
import { countOf } from '../../src/core/count.js'

describe('countOf: a count with its noun in the right number', () => {
  it.each([
    [2, 'clash', '2 clashes'],
    [1, 'clash', '1 clash'],
    [0, 'route', '0 routes'],
    [1, 'route', '1 route'],
    [3, 'entry', '3 entries'],
    [2, 'key', '2 keys'],
    [1, 'byte', '1 byte'],
    [5, 'box', '5 boxes'],
    [2, 'match', '2 matches'],
  ])('%i %s -> %s', (count, noun, expected) => {
    expect(countOf(count, noun)).toBe(expected)
  })

  it('takes an irregular plural', () => {
    expect(countOf(2, 'child', 'children')).toBe('2 children')
  })
})
