/**
 * docs/behaviour.md, "Faults": where `fault` may be written, how it is inherited, what the
 * engine answers with it, and what the readers of route keys (validation, the model's answers,
 * `check`'s dead config and OpenAPI) make of it.
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { answersOf } from '../../src/core/routes-model.js'
import { validateRoutes } from '../../src/core/validate-routes.js'
import { findDeadConfig } from '../../src/check/find-dead-config.js'
import { checkOpenApi, loadOpenApi } from '../../src/check/check-openapi.js'
import { engineFor, named, removeTempDirs, send, tempDir } from '../support/routes.js'

afterAll(removeTempDirs)

describe('where fault may be written', () => {
  it('on a route, a method value, an entry and a sequence item: no error, no warning', () => {
    const routes = {
      'v1/a': { fault: 'reset' },
      'v1/b': { get: { fault: 'close' } },
      'v1/c': { get: [{ params: { id: '1' }, fault: 'hang' }] },
      'v1/d': { get: [{ response: [{ fault: 'truncate', file: 'x.json' }, { status: 503 }] }] },
    }
    expect(validateRoutes(routes, 'routes.json')).toEqual({ errors: [], warnings: [] })
  })

  it('an unknown name: an error with the JSON path, the closest name and every allowed one', () => {
    const { errors } = validateRoutes({ 'v1/a': { get: [{ response: [{ fault: 'hnag' }] }] }, 'v1/b': { fault: 42 } }, 'routes.json')
    expect(errors).toEqual([
      { file: 'routes.json', pointer: '/v1~1a/get/0/response/0/fault', message: 'unknown fault "hnag"', fix: 'Did you mean "hang"? Write fault as one of "reset", "close", "hang", "truncate".' },
      { file: 'routes.json', pointer: '/v1~1b/fault', message: 'unknown fault 42', fix: 'Write fault as one of "reset", "close", "hang", "truncate".' },
    ])
  })
})

describe('the engine', () => {
  const engine = engineFor(
    {
      'v1/flaky': { fault: 'reset', file: 'missing.json' },
      'v1/mixed': { fault: 'close', post: 'created.json' },
      'v1/cut': { file: 'report.json', get: { fault: 'truncate' } },
      'v1/retry': { get: [{ file: 'ok.json', response: [{ fault: 'reset' }, { status: 503 }, {}] }] },
    },
    named('created.json', 'report.json', 'ok.json'),
  )

  it('answers a fault with status 0 and no body, without reading its file', async () => {
    const sent = await send(engine, '/v1/flaky')
    expect(sent).toMatchObject({ matched: true, status: 0, body: null })
    const result = await engine.handle({ method: 'GET', url: 'http://mock.test/v1/flaky', headers: new Headers(), body: () => null })
    expect(result.matched && [result.response.fault, result.info.fault]).toEqual(['reset', 'reset'])
  })

  it('a route-level fault answers every method; a method file name is more specific and answers its method', async () => {
    for (const method of ['GET', 'PUT', 'DELETE']) {
      const result = await engine.handle({ method, url: 'http://mock.test/v1/mixed', headers: new Headers(), body: () => null })
      expect(result.matched && result.response.fault).toBe('close')
    }
    const post = await engine.handle({ method: 'POST', url: 'http://mock.test/v1/mixed', headers: new Headers(), body: () => null })
    expect(post.matched && [post.response.status, post.response.fault]).toEqual([200, undefined])
  })

  it('truncate keeps the answer it cuts (the inherited file and its status)', async () => {
    const result = await engine.handle({ method: 'GET', url: 'http://mock.test/v1/cut', headers: new Headers(), body: () => null })
    expect(result.matched && [result.response.status, result.response.fault, result.info.file]).toEqual([200, 'truncate', 'report.json'])
  })

  it('in a sequence, a fault is an item like any other: reset, 503, the answer, then over again', async () => {
    const seen: string[] = []
    for (let i = 0; i < 4; i++) {
      const result = await engine.handle({ method: 'GET', url: 'http://mock.test/v1/retry', headers: new Headers(), body: () => null })
      if (result.matched) seen.push(result.response.fault ?? String(result.response.status))
    }
    expect(seen).toEqual(['reset', '503', '200', 'reset'])
  })
})

describe('readers of route keys', () => {
  it('the model lists the fault of each answer with where it is written', () => {
    const route = { get: [{ response: [{ fault: 'reset' }, { status: 503 }] }] }
    expect(answersOf(route, 'v1/retry', 'get').map((answer) => answer.fields.fault)).toEqual([{ value: 'reset', path: ['v1/retry', 'get', 0, 'response', 0, 'fault'] }, undefined])
  })

  it('explanations read entries with a fault and no file', async () => {
    const engine = engineFor({ 'v1/a': { get: [{ params: { a: '1' }, fault: 'reset' }, { params: { a: '3' }, response: [{ fault: 'hang' }, { status: 503 }] }] } })
    const { explanation } = await send(engine, '/v1/a?a=2')
    expect(explanation).toContain('every entry of v1/a (GET) is out')
    expect(explanation).toContain('get[0]: param "a" is "2", expected "1"')
    expect(explanation).toContain('sequence: item 1 of 2 next')
  })

  it('dead config: a file next to a fault that sends nothing is never served; truncate serves half of it', () => {
    const found = findDeadConfig({ 'v1/a': { file: 'a.json', fault: 'reset' }, 'v1/b': { file: 'b.json', fault: 'truncate' } }, 'routes.json')
    expect(found).toEqual([
      { kind: 'ignored', file: 'routes.json', pointer: '/v1~1a/file', message: 'the file "a.json" is never served: the fault "reset" sends no answer', fix: 'Remove "file", or use "fault": "truncate" to send half of it.' },
    ])
  })

  it('check --openapi: an answer a fault never sends is not checked against the document', async () => {
    const dir = tempDir()
    writeFileSync(
      join(dir, 'openapi.json'),
      JSON.stringify({ openapi: '3.0.0', info: { title: 't', version: '1' }, paths: { '/v1/users': { get: { responses: { '200': { description: 'ok' } } } } } }),
    )
    const api = await loadOpenApi(join(dir, 'openapi.json'), (file) => file)
    const { entries } = await checkOpenApi(api, [{ file: 'routes.json', routes: { 'v1/users': { get: [{ response: [{ fault: 'reset' }, { status: 200 }] }] } }, data: dir }])
    expect(entries.filter((entry) => entry.severity === 'error')).toEqual([])
    const { entries: busy } = await checkOpenApi(api, [{ file: 'routes.json', routes: { 'v1/users': { get: [{ response: [{ fault: 'reset' }, { status: 503 }] }] } }, data: dir }])
    expect(busy.filter((entry) => entry.severity === 'error').map((entry) => entry.pointer)).toEqual(['/v1~1users/get/0/response/1/status'])
  })
})
