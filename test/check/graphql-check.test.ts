/** `mockyard check` on GraphQL `operation` entries, run as a user runs it: the built CLI in a temporary folder. */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, expect, it } from 'vitest'
import { writeFiles } from './project.js'

const CLI = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url))
const root = mkdtempSync(join(tmpdir(), 'mockyard-check-graphql-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

it('two entries with the same operation and params shadow; different operations, or the same with other params, do not', () => {
  writeFiles(root, {
    'mocks/routes.json': {
      graphql: {
        file: 'a.json',
        post: [
          { operation: 'GetUser', params: { 'variables.id': 1 }, file: 'a.json' },
          { operation: 'GetUser', params: { 'variables.id': '1' }, file: 'a.json' },
          { operation: 'GetUser', params: { 'variables.id': 2 }, file: 'a.json' },
          { operation: 'ListPets', file: 'a.json' },
          { operation: 'DeletePet', file: 'a.json' },
        ],
      },
    },
    'mocks/data/a.json': {},
  })
  const result = spawnSync(process.execPath, [CLI, 'check', '--routes', 'mocks/routes.json', '--data', 'mocks/data'], { cwd: root, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' }, timeout: 30_000 })
  expect(result.stdout.split('\n').filter(Boolean)).toEqual([
    'mocks/routes.json#/graphql/post/0: post[0] is never chosen: post[1] has the same conditions and wins ties by coming later. Remove one of them, or make their params, operation or headers differ.',
    expect.stringMatching(/^\[mockyard\] check: 1 problem/),
  ])
  expect(result.status).toBe(1)
})
