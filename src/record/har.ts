import { readFileSync, realpathSync } from 'node:fs'
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path'
import { countOf } from '../core/count.js'
import { ConfigError } from '../core/errors.js'
import { parseJsonFile } from '../config/load-config.js'
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
  /**
   * Import every request, the page's own too (its document, styles, scripts, images, fonts). By
   * default only API-like requests are imported (`--all` on the CLI).
   */
  all?: boolean
  /**
   * Import only the requests to this origin (`https://api.example.com`; a path after it is
   * ignored): a HAR of a browser session holds third parties' requests too (`--origin`).
   */
  origin?: string
  /** Called once per imported entry with what the writer did. */
  onRecord?: (entry: { method: string; url: string; status: number }, result: RecordResult) => void
}

export interface ImportHarResult extends RecordSummary {
  /** Entries not imported, one line each: no response content in the HAR, no response at all, not HTTP, malformed. */
  notImported: string[]
  /** Page requests left out (without `all`): `GET /style.css (stylesheet)`... */
  pageRequests: string[]
  /** The origins of the entries handed to the writer, most entries first: more than one share one routes.json. */
  origins: Array<{ origin: string; entries: number }>
  /** Entries left out because they went to another origin than `origin`. */
  otherOrigins: number
  /**
   * Entries whose text could not be written in the charset their Content-Type names (one Node
   * has no encoder for, or characters it cannot hold): written as UTF-8, the written
   * Content-Type saying `charset=utf-8`. One line each: `#14 GET https://api.test/v1/csv: ...`.
   */
  writtenAsUtf8: string[]
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
  const exportAgain = 'Export the HAR again from the browser\'s network panel ("Save all as HAR") or Playwright\'s recordHar, and let the export finish before importing it.'
  if (text.trim() === '') throw new ConfigError([{ file: path, pointer: '', message: `the HAR file is empty (${countOf(Buffer.byteLength(text), 'byte')})`, fix: exportAgain }])
  const parsed = parseJsonFile(text, path)
  if (parsed.problem) {
    // A HAR cut short (an export or a copy interrupted) is no syntax slip to fix by hand.
    if (cutShort(text)) {
      throw new ConfigError([{ file: path, pointer: '', message: `the HAR file is cut short after ${countOf(Buffer.byteLength(text), 'byte')} (${parsed.problem.message})`, fix: exportAgain }])
    }
    throw new ConfigError([parsed.problem])
  }
  const entries = (parsed.value as { log?: { entries?: unknown } } | null)?.log?.entries
  if (!Array.isArray(entries)) throw new ConfigError([{ file: path, pointer: '/log/entries', message: 'this is not a HAR file: it has no log.entries array', fix: 'Export the HAR from the browser\'s network panel, or from Playwright\'s recordHar.' }])

  let only: string | undefined
  if (options.origin !== undefined) {
    const parsedOrigin = URL.canParse(options.origin) ? new URL(options.origin) : undefined
    if (!parsedOrigin || !/^https?:$/.test(parsedOrigin.protocol)) throw new ConfigError([{ file: path, pointer: '', message: `the origin "${options.origin}" is not an http(s) URL`, fix: 'Give the origin of the back end to import, such as --origin https://api.example.com.' }])
    only = parsedOrigin.origin
  }
  const writer = createRecordWriter({ out: options.out ?? 'mocks', redact: options.redact, batch: true })
  const writtenAsUtf8: string[] = []
  const origins = new Map<string, number>()
  let otherOrigins = 0
  const notImported: string[] = []
  const pageRequests: string[] = []
  const realFolder = realpathSync(folder)
  /** A side file, read only from beside the HAR (or a folder under it): never an absolute path, `..` or a symlink out. */
  const readSide = (name: string): Uint8Array | string => {
    if (isAbsolute(name) || name.includes('\0')) return `the side file "${name}" is not beside the HAR: side files are read only from the HAR's folder`
    const wanted = resolve(folder, name)
    if (!inside(folder, wanted)) return `the side file "${name}" is not beside the HAR: side files are read only from the HAR's folder`
    try {
      if (!inside(realFolder, realpathSync(wanted))) return `the side file "${name}" leads out of the HAR's folder (a symlink): side files are read only from the HAR's folder`
      return readFileSync(wanted)
    } catch {
      return `its response content is in the side file ${name}, which is not beside the HAR`
    }
  }

  for (const [index, raw] of entries.entries()) {
    const checked = checkEntry(raw, index)
    if (typeof checked === 'string') {
      notImported.push(checked)
      continue
    }
    const { method, url, status, request, response, label } = checked
    if (!/^https?:\/\//i.test(url)) {
      notImported.push(`${label}: not an http(s) request`)
      continue
    }
    if (!URL.canParse(url)) {
      notImported.push(`${label}: log.entries[${index}].request.url is not a valid URL`)
      continue
    }
    const origin = new URL(url).origin
    if (only !== undefined && origin !== only) {
      otherOrigins++
      continue
    }
    if (status <= 0) {
      notImported.push(`${label}: the HAR holds no response (the request failed or was blocked)`)
      continue
    }
    if (!options.all) {
      const kind = pageAssetKind(raw as HarEntry, method, url)
      if (kind) {
        pageRequests.push(`${method} ${new URL(url).pathname} (${kind})`)
        continue
      }
    }
    const content = response.content ?? {}
    let responseBody: Uint8Array | null = null
    /** The decoded text DevTools saved, encoded once the Content-Type (and its charset) is known. */
    let text: string | undefined
    if (content._file !== undefined) {
      const side = readSide(content._file)
      if (typeof side === 'string') {
        notImported.push(`${label}: ${side}`)
        continue
      }
      responseBody = side
    } else if (typeof content.text === 'string') {
      if (content.encoding === 'base64') responseBody = Buffer.from(content.text, 'base64')
      else text = content.text
    } else if (!EMPTY_STATUS(status) && !(status >= 300 && status < 400) && (content.size ?? 0) !== 0 && method !== 'HEAD') {
      notImported.push(`${label}: the HAR holds no response content (${unsavedBody(content.size)}); record it with mockyard record, or export the HAR with content`)
      continue
    }
    const responseHeaders: Array<[string, string]> = (response.headers ?? []).map((h) => [h.name, String(h.value)])
    if (content.mimeType && !responseHeaders.some(([name]) => name.toLowerCase() === 'content-type') && ((responseBody && responseBody.byteLength > 0) || (text !== undefined && text !== ''))) {
      responseHeaders.push(['content-type', content.mimeType])
    }
    if (text !== undefined) {
      // The HAR holds the text the browser decoded: the mock must send it in the charset the
      // Content-Type names, else it sends other bytes than the back end did.
      const typeAt = responseHeaders.findIndex(([name]) => name.toLowerCase() === 'content-type')
      const encoded = encodeText(text, typeAt === -1 ? undefined : charsetOf(responseHeaders[typeAt]![1]))
      responseBody = encoded.bytes
      if (encoded.unwritable !== undefined) {
        const [name, value] = responseHeaders[typeAt]!
        responseHeaders[typeAt] = [name, value.replace(CHARSET_PARAMETER, 'charset=utf-8')]
        writtenAsUtf8.push(`${label}: ${encoded.unwritable}; written as UTF-8, with charset=utf-8 in its Content-Type`)
      }
    }
    if (response.redirectURL && !responseHeaders.some(([name]) => name.toLowerCase() === 'location')) responseHeaders.push(['location', response.redirectURL])
    const requestHeaders: Array<[string, string]> = (request.headers ?? []).filter((h) => !h.name.startsWith(':')).map((h) => [h.name, String(h.value)])
    let requestBody: Uint8Array | null
    try {
      requestBody = await requestBodyOf(request.postData, requestHeaders, readSide)
    } catch (error) {
      notImported.push(`${label}: its request body cannot be rebuilt (${(error as Error).message})`)
      continue
    }
    let result: RecordResult
    origins.set(origin, (origins.get(origin) ?? 0) + 1)
    try {
      result = await writer.add({
        method,
        url,
        requestHeaders,
        requestBody,
        status,
        // DevTools save the decoded text: the content-encoding no longer applies.
        responseHeaders: responseHeaders.filter(([name]) => name.toLowerCase() !== 'content-encoding'),
        responseBody: responseBody && responseBody.byteLength > 0 ? responseBody : null,
      } satisfies RecordedExchange)
    } catch (error) {
      notImported.push(`${label}: ${(error as Error).message}`)
      continue
    }
    if (result.skipped) notImported.push(`${label}: ${result.skipped}`)
    options.onRecord?.({ method, url, status }, result)
  }
  await writer.flush()
  const byCount = [...origins].map(([name, entries]) => ({ origin: name, entries })).sort((a, b) => b.entries - a.entries)
  return { ...writer.summary(), notImported, pageRequests, origins: byCount, otherOrigins, writtenAsUtf8 }
}

const CHARSET_PARAMETER = /charset\s*=\s*("[^"]*"|[^;\s]*)/i

/** The `charset` parameter of a Content-Type, lower case, or `undefined`. */
function charsetOf(contentType: string): string | undefined {
  return /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(contentType)?.[1]?.toLowerCase()
}

/** The labels of UTF-8 (the WHATWG Encoding Standard's). */
const UTF8_LABELS = new Set(['utf-8', 'utf8', 'unicode-1-1-utf-8', 'unicode11utf8', 'unicode20utf8', 'x-unicode20utf8'])
/**
 * The labels browsers read as windows-1252, which agrees with Latin-1 except in 0x80-0x9F
 * (`iso-8859-1` and `us-ascii` are among them: a page's "iso-8859-1" is decoded as windows-1252).
 */
const LATIN1_LABELS = new Set(['iso-8859-1', 'iso8859-1', 'iso88591', 'iso_8859-1', 'iso_8859-1:1987', 'latin1', 'l1', 'cp819', 'ibm819', 'csisolatin1', 'iso-ir-100', 'windows-1252', 'cp1252', 'x-cp1252', 'us-ascii', 'ascii', 'ansi_x3.4-1968'])

/**
 * A HAR text as the bytes the back end sent: UTF-8 without a charset or with UTF-8's; Latin-1
 * bytes for the windows-1252 labels when every character is one byte that means the same in
 * both (below 0x100, outside 0x80-0x9F); UTF-16LE; ASCII as it is in any charset that extends ASCII.
 * Otherwise UTF-8, and `unwritable` says why (the caller changes the charset to match).
 */
function encodeText(text: string, charset: string | undefined): { bytes: Uint8Array; unwritable?: string } {
  const utf8 = Buffer.from(text, 'utf8')
  if (charset === undefined || UTF8_LABELS.has(charset)) return { bytes: utf8 }
  if (charset === 'utf-16le') return { bytes: Buffer.from(text, 'utf16le') }
  // UTF-16 and UTF-32 hold ASCII in more than one byte, UTF-7 writes "+" otherwise.
  if (/^[\x00-\x7f]*$/.test(text) && !/^(utf-?(16|32|7)|ucs-?[24]|unicode)/.test(charset)) return { bytes: utf8 }
  if (LATIN1_LABELS.has(charset)) {
    const misfit = /[^\x00-\x7f\xa0-\xff]/u.exec(text)
    if (misfit === null) return { bytes: Buffer.from(text, 'latin1') }
    return { bytes: utf8, unwritable: `its text has ${JSON.stringify(misfit[0])} (U+${misfit[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}), which mockyard cannot write in charset=${charset}` }
  }
  return { bytes: utf8, unwritable: `mockyard cannot encode charset=${charset}` }
}

/** JSON that breaks off where the text ends: the file was cut short, not mistyped. */
function cutShort(text: string): boolean {
  try {
    JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text)
    return false
  } catch (error) {
    const message = (error as Error).message
    const position = /position (\d+)/.exec(message)
    return /Unexpected end of JSON input|Unterminated string/.test(message) || (position !== null && Number(position[1]) >= text.trimEnd().length)
  }
}

/** `child` is `folder` itself or lies under it. */
function inside(folder: string, child: string): boolean {
  const path = relative(folder, child)
  return path !== '' && !path.startsWith('..' + sep) && path !== '..' && !isAbsolute(path)
}

interface CheckedEntry {
  method: string
  url: string
  status: number
  label: string
  request: NonNullable<HarEntry['request']>
  response: NonNullable<HarEntry['response']>
}

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value)

/**
 * Checks the shape of one HAR entry before anything reads it: the entry's number, method and URL,
 * the JSON path of the first problem and what is wrong, or the entry with its status as a number
 * (`"201"` is read as 201).
 */
function checkEntry(entry: unknown, index: number): CheckedEntry | string {
  const at = `log.entries[${index}]`
  if (!isObject(entry)) return `#${index}: ${at} is not an object`
  const request = entry.request
  if (!isObject(request)) return `#${index}: ${at}.request is missing or not an object`
  const method = request.method === undefined ? 'GET' : request.method
  if (typeof method !== 'string' || !/^[A-Za-z]+$/.test(method)) return `#${index}: ${at}.request.method must be a method name such as "GET", got ${JSON.stringify(method)}`
  if (typeof request.url !== 'string') return `#${index} ${method}: ${at}.request.url must be a string, got ${JSON.stringify(request.url) ?? 'nothing'}`
  const label = `#${index} ${method.toUpperCase()} ${request.url.split('?')[0]}`
  const problem = (path: string, what: string) => `${label}: ${at}.${path} ${what}`
  const headers = (path: string, list: unknown): string | undefined => {
    if (list === undefined) return undefined
    if (!Array.isArray(list)) return problem(path, 'must be an array of { "name", "value" }')
    for (const [i, header] of list.entries()) {
      if (!isObject(header)) return problem(`${path}[${i}]`, 'must be an object { "name", "value" }')
      if (typeof header.name !== 'string' || header.name === '') return problem(`${path}[${i}]`, 'has no name')
      if (typeof header.value !== 'string' && typeof header.value !== 'number') return problem(`${path}[${i}].value`, `must be a string (header "${header.name}")`)
    }
    return undefined
  }
  const requestProblem = headers('request.headers', request.headers)
  if (requestProblem) return requestProblem
  const postData = request.postData
  if (postData !== undefined) {
    if (!isObject(postData)) return problem('request.postData', 'must be an object')
    if (postData.text !== undefined && typeof postData.text !== 'string') return problem('request.postData.text', 'must be a string')
    if (postData.mimeType !== undefined && typeof postData.mimeType !== 'string') return problem('request.postData.mimeType', 'must be a string')
    if (postData._file !== undefined && typeof postData._file !== 'string') return problem('request.postData._file', 'must be a file name')
    if (postData.params !== undefined) {
      if (!Array.isArray(postData.params)) return problem('request.postData.params', 'must be an array of { "name", "value" }')
      for (const [i, param] of postData.params.entries()) {
        if (!isObject(param) || typeof param.name !== 'string') return problem(`request.postData.params[${i}]`, 'has no name')
        if (param.value !== undefined && typeof param.value !== 'string') return problem(`request.postData.params[${i}].value`, 'must be a string')
        if (param.fileName !== undefined && typeof param.fileName !== 'string') return problem(`request.postData.params[${i}].fileName`, 'must be a string')
      }
    }
  }
  const response = entry.response
  if (response === undefined || response === null) return { method: method.toUpperCase(), url: request.url, status: 0, label, request: request as CheckedEntry['request'], response: {} }
  if (!isObject(response)) return problem('response', 'must be an object')
  let status = response.status ?? 0
  if (typeof status === 'string' && /^\s*\d+\s*$/.test(status)) status = Number(status)
  if (typeof status !== 'number' || !Number.isInteger(status)) return problem('response.status', `must be a whole number, got ${JSON.stringify(status)}`)
  const responseProblem = headers('response.headers', response.headers)
  if (responseProblem) return responseProblem
  const content = response.content
  if (content !== undefined) {
    if (!isObject(content)) return problem('response.content', 'must be an object')
    if (content.text !== undefined && typeof content.text !== 'string') return problem('response.content.text', 'must be a string')
    if (content.encoding !== undefined && content.encoding !== 'base64' && content.encoding !== '') return problem('response.content.encoding', `must be "base64" when given, got ${JSON.stringify(content.encoding)}`)
    if (content.mimeType !== undefined && typeof content.mimeType !== 'string') return problem('response.content.mimeType', 'must be a string')
    if (content._file !== undefined && typeof content._file !== 'string') return problem('response.content._file', 'must be a file name')
    if (content.size !== undefined && typeof content.size !== 'number') return problem('response.content.size', 'must be a number')
  }
  if (response.redirectURL !== undefined && typeof response.redirectURL !== 'string') return problem('response.redirectURL', 'must be a string')
  return { method: method.toUpperCase(), url: request.url, status, label, request: request as CheckedEntry['request'], response: response as CheckedEntry['response'] }
}

/** Chrome's resource types that are the page's own, not its API calls. */
const PAGE_RESOURCE_TYPES = new Set(['document', 'stylesheet', 'script', 'image', 'font', 'media', 'manifest', 'texttrack', 'cspviolationreport', 'signedexchange'])
/** Chrome's resource types of API calls. */
const API_RESOURCE_TYPES = new Set(['xhr', 'fetch', 'eventsource', 'websocket', 'preflight'])
const PAGE_TYPES = /^(text\/(html|css|javascript|ecmascript)|application\/(javascript|ecmascript|x-javascript|wasm|manifest\+json)|image\/|font\/|audio\/|video\/|application\/(font|x-font)-)/i
const PAGE_EXTENSIONS = /\.(html?|css|m?js|map|png|jpe?g|gif|svg|ico|webp|avif|bmp|woff2?|ttf|otf|eot|webmanifest|wasm|mp4|webm|mp3)$/i

/**
 * What kind of page request a HAR entry is (the page's document, its styles, scripts, images,
 * fonts), or `undefined` for an API-like request. Chrome says it (`_resourceType`); otherwise (and
 * for Chrome's `other`) the response's media type, then the path's extension, decide. Methods other than GET and HEAD are
 * always API requests.
 */
export function pageAssetKind(entry: HarEntry, method: string, url: string): string | undefined {
  if (method !== 'GET' && method !== 'HEAD') return undefined
  const resourceType = (entry as { _resourceType?: unknown })._resourceType
  if (typeof resourceType === 'string' && resourceType !== '') {
    const lower = resourceType.toLowerCase()
    if (PAGE_RESOURCE_TYPES.has(lower)) return lower
    if (API_RESOURCE_TYPES.has(lower)) return undefined
  }
  const headerType = entry.response?.headers?.find((h) => h.name.toLowerCase() === 'content-type')?.value
  const type = String(headerType ?? entry.response?.content?.mimeType ?? '').split(';')[0]!.trim()
  if (PAGE_TYPES.test(type)) return type
  const path = new URL(url).pathname
  if (PAGE_EXTENSIONS.test(path)) return path.slice(path.lastIndexOf('.') + 1)
  return undefined
}

/**
 * A form field name or value as HAR tools save them: already percent-encoded as sent (Chrome,
 * Firefox), kept as it is; any other text encoded.
 */
function formEncode(text: string): string {
  try {
    if (decodeURIComponent(text.replace(/\+/g, ' ')) !== text) return text
  } catch {
    // A lone % is text, not an escape.
  }
  return encodeURIComponent(text).replace(/%20/g, '+')
}

/**
 * The request body a HAR entry describes. A multipart form whose text DevTools left out (or
 * mangled: binary parts) is rebuilt from its `params`, file fields by their file names; so is a
 * urlencoded form that has `params` and no `text`.
 */
async function requestBodyOf(postData: NonNullable<HarEntry['request']>['postData'], headers: Array<[string, string]>, readSide: (name: string) => Uint8Array | string): Promise<Uint8Array | null> {
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
  // A urlencoded form whose text the HAR left out (Firefox, some tools keep only `params`): the
  // fields written back as the browser sent them, so they are scored as the form was.
  if (/^application\/x-www-form-urlencoded/i.test(type) && typeof postData.text !== 'string' && postData._file === undefined && Array.isArray(postData.params) && postData.params.length > 0) {
    if (!headers.some(([name]) => name.toLowerCase() === 'content-type')) headers.push(['content-type', type])
    return Buffer.from(postData.params.map((param) => `${formEncode(param.name)}=${formEncode(param.value ?? '')}`).join('&'), 'utf8')
  }
  if (postData._file !== undefined) {
    const side = readSide(postData._file)
    if (typeof side === 'string') throw new Error(side)
    return side
  }
  if (typeof postData.text === 'string') {
    if (!headers.some(([name]) => name.toLowerCase() === 'content-type') && postData.mimeType) headers.push(['content-type', postData.mimeType])
    return postData.encoding === 'base64' ? Buffer.from(postData.text, 'base64') : Buffer.from(postData.text, 'utf8')
  }
  return null
}
