import { randomUUID } from 'node:crypto'
import { closeSync, createReadStream, openSync, readdirSync, rmSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import { Readable, Transform } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import * as zlib from 'node:zlib'
import { brotliDecompressSync, createBrotliDecompress, createGunzip, createInflate, gunzipSync, inflateSync } from 'node:zlib'

/** One request and the answer it got, as the recorder and the HAR import hand it to the writer. */
export { HOP_BY_HOP } from '../forward/headers.js'

export interface RecordedExchange {
  method: string
  /** The absolute URL the client asked for (its path and query are what get recorded). */
  url: string
  /** Header pairs, names in any case. */
  requestHeaders: Array<[string, string]>
  requestBody: Uint8Array | null
  status: number
  responseHeaders: Array<[string, string]>
  /**
   * The body as the client would read it (content-encoding already undone), or `null`. A large
   * body comes as a temporary file (`SpooledBody`) that the writer takes over: it moves or deletes it.
   */
  responseBody: Uint8Array | SpooledBody | null
  /**
   * Where the back end's own absolute links start (default: the origin of `url`): a `Location`
   * under it is written as a path, so the client stays on the mock.
   */
  origin?: string
  /**
   * When each piece of the body arrived (ms after the headers) and the body's length in bytes
   * once it had (`end`): a `text/event-stream` answer becomes `events` with their delays, a
   * chunked one spread over time keeps its pace as `stream` (docs/behaviour.md, "Record, import
   * and proxy"). Absent when unknown (a HAR import).
   */
  timing?: Array<{ at: number; end: number }>
}

/** The most pieces whose arrival the recorder notes per answer. */
export const TIMING_LIMIT = 10_000

/** Headers whose values are secrets: never written to disk, whatever `--redact` says. */
export const SECRET_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie'])

/*
 * zstd came to node:zlib in Node 22.15 and 23.8; mockyard runs on 22.12 too, where the names do
 * not exist: looked up at run time (a named import of a missing export would fail to load).
 */
const zstd = zlib as { createZstdDecompress?: () => Transform; zstdDecompressSync?: (bytes: Uint8Array) => Buffer }

/** The codings of a `Content-Encoding` this Node can undo. */
export function canDecode(coding: string): boolean {
  return coding === 'gzip' || coding === 'x-gzip' || coding === 'deflate' || coding === 'br' || (coding === 'zstd' && zstd.createZstdDecompress !== undefined)
}

/**
 * Undoes a `Content-Encoding` (gzip, deflate, br, zstd where node:zlib has it) so the data file
 * holds what the client read. A body that does not decode is kept as it came.
 */
export function decodeBody(bytes: Uint8Array, encoding: string | undefined): Uint8Array {
  const codings = (encoding ?? '')
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== '' && c !== 'identity')
  let body: Uint8Array = bytes
  try {
    for (const coding of codings.reverse()) {
      if (coding === 'gzip' || coding === 'x-gzip') body = gunzipSync(body)
      else if (coding === 'deflate') body = inflateSync(body)
      else if (coding === 'br') body = brotliDecompressSync(body)
      else if (coding === 'zstd' && zstd.zstdDecompressSync) body = zstd.zstdDecompressSync(body)
      else return bytes
    }
  } catch {
    return bytes
  }
  return body
}

/** A body kept in a temporary file instead of memory; `size` in bytes. */
export interface SpooledBody {
  path: string
  size: number
}

export const isSpooled = (body: Uint8Array | SpooledBody | null | undefined): body is SpooledBody => body !== null && body !== undefined && !(body instanceof Uint8Array)

/** Bodies up to this size stay in memory; larger ones go to a temporary file as they arrive. */
export const IN_MEMORY = 8 * 1024 * 1024
/**
 * The most a compressed answer may decode to and still be recorded: a decompression bomb (a few
 * hundred KB of gzip that decode to gigabytes) is not written (docs/behaviour.md, "What gets written").
 */
export const MAX_DECODED = 100 * 1024 * 1024

/**
 * Collects a body: in memory up to `IN_MEMORY` bytes, then in a temporary file of `folder`
 * (written synchronously chunk by chunk, so memory holds one chunk at a time).
 */
export class Spool {
  #chunks: Buffer[] = []
  #fd: number | undefined
  #path: string | undefined
  size = 0
  constructor(private readonly folder: string) {}

  write(chunk: Buffer): void {
    this.size += chunk.length
    if (this.#fd === undefined && this.size <= IN_MEMORY) {
      this.#chunks.push(chunk)
      return
    }
    if (this.#fd === undefined) {
      this.#path = join(this.folder, `.mockyard-${process.pid}-${randomUUID()}.tmp`)
      this.#fd = openSync(this.#path, 'w')
      for (const held of this.#chunks) writeSync(this.#fd, held)
      this.#chunks = []
    }
    writeSync(this.#fd, chunk)
  }

  /** The body collected: bytes, a temporary file, or `null` when empty. */
  finish(): Uint8Array | SpooledBody | null {
    if (this.#fd !== undefined) {
      closeSync(this.#fd)
      this.#fd = undefined
      return { path: this.#path!, size: this.size }
    }
    return this.size === 0 ? null : Buffer.concat(this.#chunks)
  }

  /** Drops what was collected (its temporary file included). */
  discard(): void {
    if (this.#fd !== undefined) closeSync(this.#fd)
    this.#fd = undefined
    if (this.#path) rmSync(this.#path, { force: true })
    this.#chunks = []
  }
}

/**
 * The temporary files a recording leaves while it works, and the process that owns each: a
 * spooled body (`.mockyard-<pid>-<uuid>.tmp`), its scrubbed copy (`….tmp.clean.tmp`), a file being
 * written atomically (`routes.json.<pid>.<uuid>.tmp`).
 */
const TEMPORARY = /^(?:\.mockyard-(\d+)-[0-9a-f-]{36}\.tmp(?:\.clean\.tmp)?|.+\.(\d+)\.[0-9a-f-]{36}\.tmp)$/

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code !== 'ESRCH'
  }
}

/**
 * Deletes the temporary files of a recording in these folders: this process's own (`'own'`: a
 * forced exit, whose writes in flight will never finish), or those of processes that are gone
 * (`'dead'`: a writer starting, after a recorder was killed). A file that cannot be deleted stays.
 */
export function removeTemporaryFiles(folders: readonly string[], whose: 'own' | 'dead'): void {
  for (const folder of folders) {
    let names: string[]
    try {
      names = readdirSync(folder)
    } catch {
      continue
    }
    for (const name of names) {
      const match = TEMPORARY.exec(name)
      if (!match) continue
      const pid = Number(match[1] ?? match[2])
      if (whose === 'own' ? pid !== process.pid : pid === process.pid || alive(pid)) continue
      rmSync(join(folder, name), { force: true })
    }
  }
}

/** Deletes a spooled body's temporary file; bytes need nothing. */
export function dropBody(body: Uint8Array | SpooledBody | null | undefined): void {
  if (isSpooled(body)) rmSync(body.path, { force: true })
}

/** Why a body was not decoded for the disk. */
export class TooLargeError extends Error {}

/** A body after `decodeStreaming`: decoded, or kept as it came with the coding it still has. */
export interface DecodedBody {
  body: Uint8Array | SpooledBody | null
  /**
   * The `Content-Encoding` the body still has: a coding this Node cannot undo (zstd before Node
   * 22.15, `compress`...), or bytes that did not decode. The recording keeps it with the raw
   * bytes, so the mock sends what the back end sent; `--redact` cannot search such a body.
   */
  encoded?: string
}

/**
 * Undoes a `Content-Encoding` as a stream, into memory or a temporary file (`Spool`), stopping
 * once the decoded size passes `limit`: then it throws `TooLargeError`. A body that does not
 * decode, or whose coding this Node cannot undo, is kept as it came, with its coding in
 * `encoded`. The raw body is consumed either way.
 */
export async function decodeStreaming(raw: Uint8Array | SpooledBody, encoding: string | undefined, folder: string, limit = MAX_DECODED): Promise<DecodedBody> {
  const codings = (encoding ?? '')
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== '' && c !== 'identity')
  if (codings.length === 0) return { body: raw }
  if (!codings.every(canDecode)) return { body: raw, encoded: encoding }
  const decoders = []
  for (const coding of codings.reverse()) {
    if (coding === 'gzip' || coding === 'x-gzip') decoders.push(createGunzip())
    else if (coding === 'deflate') decoders.push(createInflate())
    else if (coding === 'br') decoders.push(createBrotliDecompress())
    else decoders.push(zstd.createZstdDecompress!())
  }
  const out = new Spool(folder)
  const sink = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      if (out.size + chunk.length > limit) return done(new TooLargeError(`decodes to more than ${limit / 1024 / 1024} MB`))
      out.write(chunk)
      done()
    },
  })
  const source = isSpooled(raw) ? createReadStream(raw.path) : Readable.from([Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength)])
  try {
    await pipeline([source, ...decoders, sink])
  } catch (error) {
    out.discard()
    if (error instanceof TooLargeError) {
      dropBody(raw)
      throw error
    }
    return { body: raw, encoded: encoding }
  }
  dropBody(raw)
  return { body: out.finish() }
}
