/**
 * The JSON bodies an engine remembers (docs/behaviour.md, "Selecting the entry (scoring)"): a short
 * body's tree is kept the second time it comes, deep frozen, and answers exactly as a fresh parse.
 */
import { describe, expect, it } from 'vitest'
import { BodyParseError, rememberBodies } from '../../src/core/parse-request.js'
import type { RoutesConfig } from 'mockyard'
import { engineFor, fileOf, named } from '../support/routes.js'

const files = named('default.json', 'ca.json', 'ny.json', 'medical.json', 'op.json')
const post = (body: unknown) => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body) })

describe('rememberBodies', () => {
  it('parses a body seen once every time, and keeps it frozen from the second time on', () => {
    const bodies = rememberBodies()
    const text = '{"member":{"address":{"state":"CA"}},"lines":[{"code":"99213"}]}'
    const first = bodies.tree(text) as Record<string, unknown>
    expect(Object.isFrozen(first)).toBe(false)
    const second = bodies.tree(text) as { member: { address: object }; lines: object[] }
    expect(second).toEqual(first)
    expect(second).not.toBe(first)
    // Everything in the kept tree is frozen: nothing that reads it can change what the next request sees.
    expect([second, second.member, second.member.address, second.lines, second.lines[0]].map((part) => Object.isFrozen(part))).toEqual([true, true, true, true, true])
    expect(bodies.tree(text)).toBe(second)
    // Equal text that is another string object (as every request's is) finds it too.
    expect(bodies.tree(JSON.stringify(JSON.parse(text)))).toBe(second)
  })

  it('gives each of many bodies its own tree, past the number it remembers', () => {
    const bodies = rememberBodies()
    for (let round = 0; round < 4; round++) {
      for (let i = 0; i < 50; i++) expect(bodies.tree(`{"n":${i}}`)).toEqual({ n: i })
    }
  })

  it('parses a long body every time and never keeps it', () => {
    const bodies = rememberBodies()
    const long = JSON.stringify({ text: 'x'.repeat(5000) })
    const trees = [bodies.tree(long), bodies.tree(long), bodies.tree(long)]
    expect(trees[2]).toEqual(trees[0])
    expect(new Set(trees).size).toBe(3)
    expect(trees.some((tree) => Object.isFrozen(tree))).toBe(false)
  })

  it('refuses a body that does not parse every time it comes', () => {
    const bodies = rememberBodies()
    for (let i = 0; i < 3; i++) expect(() => bodies.tree('{"a":')).toThrow(BodyParseError)
  })

  it('keeps scalar bodies as well', () => {
    const bodies = rememberBodies()
    for (const text of ['null', '0', '"text"', 'false', '[]']) {
      for (let i = 0; i < 3; i++) expect(bodies.tree(text)).toEqual(JSON.parse(text))
    }
  })
})

describe('an engine choosing by body params, with the same bodies again and again', () => {
  const routes = {
    'v1/claims/search': {
      file: 'default.json',
      post: [
        { params: { 'member.address.state': 'CA' }, file: 'ca.json' },
        { params: { 'member.address.state': 'NY' }, file: 'ny.json' },
        { params: { 'claim.type': 'medical' }, file: 'medical.json' },
      ],
    },
  } as RoutesConfig

  it('answers each body as the first time, in any order', async () => {
    const engine = engineFor(routes, files)
    const sent = [
      [{ member: { address: { state: 'CA' } } }, 'ca.json'],
      [{ member: { address: { state: 'NY' } } }, 'ny.json'],
      [{ claim: { type: 'medical' } }, 'medical.json'],
      [{ member: { address: { state: 'TX' } } }, 'default.json'],
    ] as const
    for (let round = 0; round < 4; round++) {
      for (const [body, file] of sent) expect(await fileOf(engine, '/v1/claims/search', post(body))).toBe(file)
    }
  })

  it('answers a GraphQL body sent again and again by its operation', async () => {
    const engine = engineFor({ graphql: { post: [{ operation: 'GetUser', params: { 'variables.id': '1' }, file: 'op.json' }] } }, files)
    const body = { query: 'query GetUser($id: ID!) { user(id: $id) { id } }', variables: { id: '1' } }
    for (let i = 0; i < 4; i++) expect(await fileOf(engine, '/graphql', post(body))).toBe('op.json')
  })
})
