/**
 * Answers Availity's clients relied on from the old mock server, the same on every surface the
 * engine serves (docs/behaviour.md, "Building the response"): a tus upload chunk's
 * `Upload-Offset`, and a redirect to a URL with non-ASCII characters.
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import express from 'express'
import { setupServer } from 'msw/node'
import { createHandlers, createMiddleware, startMockServer } from 'mockyard/node'
import { afterAll, describe, expect, it } from 'vitest'
import { removeTempDirs, writeMocks } from '../support/routes.js'

afterAll(removeTempDirs)

const UPLOADS = 'ms/api/availity/internal/core/vault/upload/v1/resumable'
const routes = {
  [UPLOADS]: { post: { status: 201, responseHeaders: { Location: `/${UPLOADS}/abc`, 'Tus-Resumable': '1.0.0' } } },
  [`${UPLOADS}/:id`]: { patch: { status: 204, responseHeaders: { 'Tus-Resumable': '1.0.0' } } },
  'v1/eur': { url: 'http://example.com/€uro' },
}
const quiet = () => ({ log() {}, debug() {}, info() {}, warn() {}, error: console.error })

type Fetch = (path: string, init?: RequestInit) => Promise<Response>
const surfaces: Array<[string, () => Promise<{ fetch: Fetch; close: () => Promise<void> }>]> = [
  [
    'in process (createHandlers + msw)',
    async () => {
      const server = setupServer(...(await createHandlers({ routes, latency: 0 })))
      server.listen({ onUnhandledFrame: 'error' })
      return { fetch: (path, init) => fetch('http://api.example.test' + path, init), close: async () => server.close() }
    },
  ],
  [
    'HTTP listener',
    async () => {
      const server = await startMockServer({ routes: writeMocks(routes).routes, latency: 0, logProvider: quiet })
      return { fetch: (path, init) => fetch(server.url + path, init), close: () => server.stop() }
    },
  ],
  [
    'middleware in express',
    async () => {
      const middleware = await createMiddleware({ routes: writeMocks(routes).routes, latency: 0, watch: false, logProvider: quiet })
      const server = createServer(express().use(middleware))
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
      return {
        fetch: (path, init) => fetch(base + path, init),
        close: async () => {
          server.closeAllConnections()
          await new Promise((resolve) => server.close(resolve))
          await middleware.close()
        },
      }
    },
  ],
]

describe.each(surfaces)('old-server answers: %s', (_name, create) => {
  it('a tus upload: the PATCH of a chunk answers Upload-Offset, readable across origins', async () => {
    const surface = await create()
    try {
      const created = await surface.fetch(`/${UPLOADS}`, { method: 'POST', headers: { 'tus-resumable': '1.0.0', 'upload-length': '11' } })
      expect([created.status, created.headers.get('location')]).toEqual([201, `/${UPLOADS}/abc`])
      const patched = await surface.fetch(created.headers.get('location')!, {
        method: 'PATCH',
        headers: { 'content-type': 'application/offset+octet-stream', 'tus-resumable': '1.0.0', 'upload-offset': '0', origin: 'http://app.test' },
        body: 'hello world',
      })
      expect([patched.status, patched.headers.get('upload-offset')]).toEqual([204, '11'])
      expect(patched.headers.get('access-control-expose-headers')?.split(', ')).toContain('upload-offset')
    } finally {
      await surface.close()
    }
  })

  it('a redirect to a URL with non-ASCII characters: 302, the Location percent-encoded', async () => {
    const surface = await create()
    try {
      const res = await surface.fetch('/v1/eur', { redirect: 'manual' })
      expect([res.status, res.headers.get('location')]).toEqual([302, 'http://example.com/%E2%82%ACuro'])
    } finally {
      await surface.close()
    }
  })
})
