import { describe, expect, it } from 'vitest'
import { compileRoutes, createEngine, fromFetchRequest, memoryFiles, type RoutesConfig } from 'mockyard'

function engineFor(routes: RoutesConfig, files: Record<string, string> = {}) {
  return createEngine(compileRoutes([{ file: 'routes.json', routes, files: memoryFiles(files) }]))
}

async function send(engine: ReturnType<typeof engineFor>, url: string, init?: RequestInit) {
  const result = await engine.handle(fromFetchRequest(new Request(`http://localhost${url}`, init)))
  if (!result.matched) return { status: 0, body: result.explanation(), headers: {} as Record<string, string> }
  const body = result.response.body
  return { status: result.response.status, body: typeof body === 'string' ? body : body ? new TextDecoder().decode(body) : '', headers: result.response.headers, info: result.info }
}

describe('engine', () => {
  it('serves a route file for every method', async () => {
    const engine = engineFor({ 'v1/users': { file: 'users.json' } }, { 'users.json': '[1]' })
    for (const method of ['GET', 'PUT', 'POST', 'DELETE', 'PATCH']) {
      const res = await send(engine, '/v1/users', { method })
      expect(res.status).toBe(200)
      expect(res.body).toBe('[1]')
    }
  })
})
