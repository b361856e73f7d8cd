/**
 * The listener's 404 (docs/behaviour.md, "Errors and limits"): the explanation, negotiated by the
 * client's Accept header into JSON, HTML or XML.
 */
import { errorResponse, type MockResponse } from '../core/build-response.js'

/** Media ranges of an Accept header, most preferred first: by q-value, then by position. */
function rankAccept(accept: string | null): string[] {
  return (accept ?? '')
    .split(',')
    .map((part, index) => {
      const q = /;\s*q=([0-9.]+)/.exec(part)
      return { type: part.split(';')[0]!.trim().toLowerCase(), q: q ? Number(q[1]) : 1, index }
    })
    .filter((entry) => entry.type !== '' && entry.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index)
    .map((entry) => entry.type)
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
}

/**
 * The 404 of the listener: JSON by default, HTML when the client prefers `text/html`, XML
 * when it prefers XML. The message names the request and the closest routes.
 */
export function notFoundResponse(explanation: string, accept: string | null, method: string, url: string): MockResponse {
  const ranked = rankAccept(accept)
  const prefers = (type: string) => ranked.findIndex((part) => part.includes(type))
  const html = prefers('text/html')
  const xml = [prefers('application/xml'), prefers('text/xml')].filter((i) => i !== -1).sort((a, b) => a - b)[0] ?? -1
  const json = prefers('json')
  if (html !== -1 && (json === -1 || html < json) && (xml === -1 || html < xml)) {
    return {
      status: 404,
      headers: { 'content-type': 'text/html; charset=utf-8' },
      body: `<!doctype html><html><head><title>404 Not Found: mockyard</title></head><body><h1>404 Not Found</h1><pre>${escapeHtml(explanation)}</pre></body></html>\n`,
    }
  }
  if (xml !== -1 && (json === -1 || xml < json)) {
    return {
      status: 404,
      headers: { 'content-type': 'application/xml; charset=utf-8' },
      body: `<?xml version="1.0" encoding="UTF-8"?>\n<error><status>404</status><error>Not Found</error><message>${escapeHtml(explanation)}</message></error>\n`,
    }
  }
  const response = errorResponse(404, 'Not Found', '', { method, url })
  response.body = JSON.stringify({ error: 'Not Found', message: explanation, method, url })
  return response
}
