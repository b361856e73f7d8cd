import { readFileSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { countOf } from '../core/count.js'
import { ConfigError } from '../core/errors.js'
import { parseJsonFile } from '../node/load-config.js'
import type { RecordedExchange } from './exchange.js'
import { createRecordWriter, type RecordResult, type RecordSummary } from './writer.js'

interface HarHeader {
  name: string
  value: string
}

interface HarEntry {
  request?: {
    method?: string
    url?: string
    headers?: HarHeader[]
    postData?: { mimeType?: string; text?: string; encoding?: string; _file?: string; params?: Array<{ name: string; value?: string; fileName?: string; contentType?: string }> }
  }
  response?: {
    status?: number
    headers?: HarHeader[]
    redirectURL?: string
    content?: { size?: number; mimeType?: string; text?: string; encoding?: string; _file?: string }
  }
}

export interface ImportHarOptions {
  /** Folder of routes.json and data/. Default `mocks`. */
  out?: string
  /** Header, query and body field names whose values are never written. */
  redact?: string[]
  /** Called once per imported entry with what the writer did. */
  onRecord?: (entry: { method: string; url: string; status: number }, result: RecordResult) => void
}

export interface ImportHarResult extends RecordSummary {
  /** Entries not imported, one line each: no response content in the HAR, no response at all, not HTTP. */
  notImported: string[]
}

const EMPTY_STATUS = (status: number) => status === 204 || status === 304 || (status >= 100 && status < 200)

/**
 * What was not saved of a body the HAR left out. Browsers write `content.size: -1` when they do
 * not know the size (HAR 1.2: -1 means "not available"): that is no count of bytes.
 */
function unsavedBody(size: number | undefined): string {
  return typeof size === 'number' && size > 0 ? `${countOf(size, 'byte')} ${size === 1 ? 'was' : 'were'} not saved` : 'the body was not saved, its size unknown'
}

/**
 * Imports a HAR file (Chrome and Firefox DevTools exports, Playwright's `recordHar`, its `_file`
 * side files included) with the same writer and rules as `record`. Entries whose response
 * content the HAR does not hold are listed in `notImported`, not invented.
 *
 * @example
 * const result = await importHar('session.har', { out: 'mocks' })
 * console.log(result.routes, result.notImported)
 */
export async function importHar(file: string, options: ImportHarOptions = {}): Promise<ImportHarResult> {
  const path = resolve(file)
  const folder = dirname(path)
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (cause) {
    throw new ConfigError([{ file: path, pointer: '', message: `the HAR file cannot be read (${(cause as NodeJS.ErrnoException).code ?? (cause as Error).message})`, fix: 'Check the path; export the HAR from the browser\'s network panel ("Save all as HAR").' }], { cause })
  }
  const parsed = parseJsonFile(text, path)
  if (parsed.problem) throw new ConfigError([parsed.problem])
  const entries = (parsed.value as { log?: { entries?: unknown } } | null)?.log?.entries
  if (!Array.isArray(entries)) throw new ConfigError([{ file: path, pointer: '/log/entries', message: 'this is not a HAR file: it has no log.entries array', fix: 'Export the HAR from the browser\'s network panel, or from Playwright\'s recordHar.' }])

  const writer = createRecordWriter({ out: options.out ?? 'mocks', redact: options.redact })
  const notImported: string[] = []
  const readSide = (name: string): Uint8Array | undefined => {
    try {
      return readFileSync(resolve(folder, name))
    } catch {
      return undefined
    }
  }

  for (const [index, entry] of (entries as HarEntry[]).entries()) {
    const request = entry?.request
    const response = entry?.response
    const method = (request?.method ?? 'GET').toUpperCase()
    const url = request?.url ?? ''
    const label = `#${index} ${method} ${url.split('?')[0]}`
    if (!/^https?:\/\//i.test(url)) {
      notImported.push(`${label}: not an http(s) request`)
      continue
    }
    const status = response?.status ?? 0
    if (!response || status <= 0) {
      notImported.push(`${label}: the HAR holds no response (the request failed or was blocked)`)
      continue
    }
    const content = response.content ?? {}
    let responseBody: Uint8Array | null = null
    if (content._file !== undefined) {
      responseBody = readSide(content._file) ?? null
      if (responseBody === null) {
        notImported.push(`${label}: its response content is in the side file ${content._file}, which is not beside the HAR`)
        continue
      }
    } else if (typeof content.text === 'string') {
      responseBody = content.encoding === 'base64' ? Buffer.from(content.text, 'base64') : Buffer.from(content.text, 'utf8')
    } else if (!EMPTY_STATUS(status) && !(status >= 300 && status < 400) && (content.size ?? 0) !== 0 && method !== 'HEAD') {
      notImported.push(`${label}: the HAR holds no response content (${unsavedBody(content.size)}); record it with mockyard record, or export the HAR with content`)
      continue
    }
    const responseHeaders: Array<[string, string]> = (response.headers ?? []).map((h) => [h.name, h.value])
    if (content.mimeType && !responseHeaders.some(([name]) => name.toLowerCase() === 'content-type') && responseBody && responseBody.byteLength > 0) {
      responseHeaders.push(['content-type', content.mimeType])
    }
    if (response.redirectURL && !responseHeaders.some(([name]) => name.toLowerCase() === 'location')) responseHeaders.push(['location', response.redirectURL])
    const requestHeaders: Array<[string, string]> = (request?.headers ?? []).filter((h) => !h.name.startsWith(':')).map((h) => [h.name, h.value])
    const requestBody = await requestBodyOf(request?.postData, requestHeaders, readSide)
    const result = await writer.add({
      method,
      url,
      requestHeaders,
      requestBody,
      status,
      // DevTools save the decoded text: the content-encoding no longer applies.
      responseHeaders: responseHeaders.filter(([name]) => name.toLowerCase() !== 'content-encoding'),
      responseBody: responseBody && responseBody.byteLength > 0 ? responseBody : null,
    } satisfies RecordedExchange)
    options.onRecord?.({ method, url, status }, result)
  }
  return { ...writer.summary(), notImported }
}

/**
 * The request body a HAR entry describes. A multipart form whose text DevTools left out (or
 * mangled: binary parts) is rebuilt from its `params`, file fields by their file names.
 */
async function requestBodyOf(postData: NonNullable<HarEntry['request']>['postData'], headers: Array<[string, string]>, readSide: (name: string) => Uint8Array | undefined): Promise<Uint8Array | null> {
  if (!postData) return null
  const type = postData.mimeType ?? headers.find(([name]) => name.toLowerCase() === 'content-type')?.[1] ?? ''
  if (/^multipart\/form-data/i.test(type) && Array.isArray(postData.params) && postData.params.length > 0) {
    const form = new FormData()
    for (const param of postData.params) {
      if (param.fileName !== undefined) form.append(param.name, new Blob([], { type: param.contentType ?? 'application/octet-stream' }), param.fileName)
      else form.append(param.name, param.value ?? '')
    }
    const encoded = new Response(form)
    const contentType = encoded.headers.get('content-type')!
    const index = headers.findIndex(([name]) => name.toLowerCase() === 'content-type')
    if (index === -1) headers.push(['content-type', contentType])
    else headers[index] = [headers[index]![0], contentType]
    return new Uint8Array(await encoded.arrayBuffer())
  }
  if (postData._file !== undefined) return readSide(postData._file) ?? null
  if (typeof postData.text === 'string') {
    if (!headers.some(([name]) => name.toLowerCase() === 'content-type') && postData.mimeType) headers.push(['content-type', postData.mimeType])
    return postData.encoding === 'base64' ? Buffer.from(postData.text, 'base64') : Buffer.from(postData.text, 'utf8')
  }
  return null
}
