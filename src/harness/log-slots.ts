/**
 * The request log's store: a fixed number of slots (a record's id modulo the log's limit) whose
 * facts live in preallocated typed arrays, with the text (method, URL, headers...) and body bytes
 * copied into 64 KB chunks of a byte store.
 *
 * Why not one object per record: a log of a server under load keeps its records for a while, so
 * they outlive the young generation's collections, and V8 answers steady survivors by growing
 * the young generation up to its maximum. Slots keep no per-request JavaScript object alive
 * (bench/README.md, "The request log's store", has the figures). `request-log.ts` builds the
 * records from the slots when they are read.
 */

/** Bits of a slot's `flags`. */
export const MATCHED = 1 << 0
/** The record was cleared (`clear(session)`): the slot is no longer live. */
export const CLEARED = 1 << 1
/** The record names the entry that answered (its text holds it). */
export const HAS_ENTRY = 1 << 2
/** The record has a body (kept bytes follow its text in the byte store). */
export const HAS_BODY = 1 << 3

/** Bytes per chunk of the byte store; a record larger than half of it gets a chunk of its own. */
export const CHUNK_BYTES = 64 * 1024

/** What one request leaves in its slot. */
export interface SlotFacts {
  id: number
  /** `Date.now()` when it arrived. */
  time: number
  durationMs: number
  status: number
  /** `MATCHED | HAS_ENTRY | HAS_BODY`, as they apply. */
  flags: number
  /** The record's text fields, NUL-separated (the log decides their layout). */
  text: string
  /** UTF-8 bytes of more text, written right after `text` (the log's request headers, when it has them encoded already). */
  tail?: Uint8Array
  /** The body, of which the first `kept` bytes are stored (the rest is only counted). */
  body: Uint8Array | null
  kept: number
  /** Route keys and file names come from the config: long-lived strings, kept by reference. */
  route: string | undefined
  file: string | undefined
  /** An unmatched request's explanation, computed when first read. */
  explanation: (() => string) | undefined
}

/**
 * The slots of a log bounded to `limit` records. It knows nothing of liveness: the log says which
 * ids are live, and passes the oldest one when writing so that chunks no live record uses are
 * freed (and one of them reused).
 *
 * @example
 * const slots = new LogSlots(1000)
 * slots.write({ id: 1, time: Date.now(), durationMs: 1, status: 200, flags: MATCHED, text: 'GET\0/', body: null, kept: 0, route: undefined, file: undefined, explanation: undefined }, 1)
 * slots.has(1 % 1000, MATCHED) // true
 */
export class LogSlots {
  readonly ids: Float64Array
  readonly times: Float64Array
  readonly durations: Float64Array
  readonly statuses: Int32Array
  /** Per slot: `MATCHED`, `CLEARED`, `HAS_ENTRY`, `HAS_BODY` bits. */
  readonly flags: Uint8Array
  /** The body's whole length in bytes, kept or not. */
  readonly bodyLengths: Float64Array
  readonly routes: Array<string | undefined>
  readonly files: Array<string | undefined>
  /** A record built from the slot when first read, until the slot changes. */
  readonly records: Array<unknown>
  /** An unmatched request's explanation: a function until first read, then its text. */
  readonly explanations: Array<(() => string) | string | undefined>

  readonly #chunkOf: Int32Array
  readonly #offsets: Int32Array
  readonly #textLengths: Int32Array
  readonly #storedBodyLengths: Int32Array
  readonly #chunks = new Map<number, Uint8Array>()
  #chunkId = 0
  #chunk: Uint8Array = new Uint8Array(CHUNK_BYTES)
  #position = 0
  #spare: Uint8Array | undefined
  readonly #encoder = new TextEncoder()
  readonly #decoder = new TextDecoder()

  constructor(readonly limit: number) {
    this.ids = new Float64Array(limit)
    this.times = new Float64Array(limit)
    this.durations = new Float64Array(limit)
    this.statuses = new Int32Array(limit)
    this.flags = new Uint8Array(limit)
    this.bodyLengths = new Float64Array(limit)
    this.#chunkOf = new Int32Array(limit)
    this.#offsets = new Int32Array(limit)
    this.#textLengths = new Int32Array(limit)
    this.#storedBodyLengths = new Int32Array(limit)
    this.routes = new Array(limit).fill(undefined)
    this.files = new Array(limit).fill(undefined)
    this.records = new Array(limit).fill(undefined)
    this.explanations = new Array(limit).fill(undefined)
    this.#chunks.set(0, this.#chunk)
  }

  /** Whether the slot's flags have `flag` set. */
  has(slot: number, flag: number): boolean {
    return (this.flags[slot]! & flag) !== 0
  }

  /** Stores a request in slot `facts.id % limit`. `oldestLiveId`: the chunk of that record and later ones are kept. */
  write(facts: SlotFacts, oldestLiveId: number): void {
    const slot = facts.id % this.limit
    // encodeInto writes at most three bytes per UTF-16 unit.
    const tail = facts.tail
    this.#reserve(facts.text.length * 3 + (tail === undefined ? 0 : tail.byteLength) + facts.kept, oldestLiveId)
    const chunk = this.#chunk
    const position = this.#position
    // A record whose whole text is the last one's again has it all in `tail` (no text to encode).
    let written = facts.text === '' ? 0 : this.#encoder.encodeInto(facts.text, chunk.subarray(position)).written
    if (tail !== undefined) {
      chunk.set(tail, position + written)
      written += tail.byteLength
    }
    const body = facts.body
    if (body && facts.kept > 0) chunk.set(facts.kept === body.byteLength ? body : body.subarray(0, facts.kept), position + written)
    this.ids[slot] = facts.id
    this.times[slot] = facts.time
    this.durations[slot] = facts.durationMs
    this.statuses[slot] = facts.status
    this.flags[slot] = facts.flags
    this.bodyLengths[slot] = body ? body.byteLength : 0
    this.#storedBodyLengths[slot] = facts.kept
    this.#chunkOf[slot] = this.#chunkId
    this.#offsets[slot] = position
    this.#textLengths[slot] = written
    this.routes[slot] = facts.route
    this.files[slot] = facts.file
    this.records[slot] = undefined
    this.explanations[slot] = facts.explanation
    this.#position = position + written + facts.kept
  }

  /**
   * Stores a request whose text and kept body are those of the record in slot `from`, written
   * just before and still live: its bytes are shared, not copied (a client sending the same
   * request again and again writes nothing but these facts, given one by one: no object).
   */
  repeat(from: number, id: number, time: number, durationMs: number, status: number, flags: number, route: string | undefined, file: string | undefined, explanation: SlotFacts['explanation']): void {
    const slot = id % this.limit
    this.ids[slot] = id
    this.times[slot] = time
    this.durations[slot] = durationMs
    this.statuses[slot] = status
    this.flags[slot] = flags
    this.bodyLengths[slot] = this.bodyLengths[from]!
    this.#storedBodyLengths[slot] = this.#storedBodyLengths[from]!
    this.#chunkOf[slot] = this.#chunkOf[from]!
    this.#offsets[slot] = this.#offsets[from]!
    this.#textLengths[slot] = this.#textLengths[from]!
    this.routes[slot] = route
    this.files[slot] = file
    this.records[slot] = undefined
    this.explanations[slot] = explanation
  }

  /** The slot's text, as written. */
  text(slot: number): string {
    const start = this.#offsets[slot]!
    return this.#decoder.decode(this.#chunks.get(this.#chunkOf[slot]!)!.subarray(start, start + this.#textLengths[slot]!))
  }

  /** The slot's kept body as text, and how many bytes of the body were not kept. */
  body(slot: number): { text: string; more: number } {
    const end = this.#offsets[slot]! + this.#textLengths[slot]!
    const kept = this.#storedBodyLengths[slot]!
    const text = this.#decoder.decode(this.#chunks.get(this.#chunkOf[slot]!)!.subarray(end, end + kept))
    return { text, more: this.bodyLengths[slot]! - kept }
  }

  /** Room for `bytes` more bytes: a new chunk when the current one is full. Frees chunks no live record uses. */
  #reserve(bytes: number, oldestLiveId: number): void {
    if (this.#position + bytes <= this.#chunk.byteLength) return
    const keepFrom = this.#chunkOf[oldestLiveId % this.limit]!
    for (const id of this.#chunks.keys()) {
      if (id >= keepFrom) break
      const dropped = this.#chunks.get(id)!
      if (dropped.byteLength === CHUNK_BYTES) this.#spare = dropped
      this.#chunks.delete(id)
    }
    this.#chunkId++
    if (bytes * 2 > CHUNK_BYTES) this.#chunk = new Uint8Array(bytes)
    else if (this.#spare && this.#spare !== this.#chunk) {
      this.#chunk = this.#spare
      this.#spare = undefined
    } else this.#chunk = new Uint8Array(CHUNK_BYTES)
    this.#chunks.set(this.#chunkId, this.#chunk)
    this.#position = 0
  }
}
