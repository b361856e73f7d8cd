/** Readers for streamed answers (`stream`, `events`), as a client sees them: chunks with their arrival times, and SSE events parsed. */

export interface Arrival {
  text: string
  /** `performance.now()` when the read resolved. */
  at: number
}

/** Reads a fetch body chunk by chunk until it ends (or `count` chunks have come), with when each came. */
export async function readChunks(body: ReadableStream<Uint8Array>, count = Infinity): Promise<Arrival[]> {
  const reader = body.getReader()
  const decoder = new TextDecoder()
  const arrivals: Arrival[] = []
  while (arrivals.length < count) {
    const { done, value } = await reader.read()
    if (done) break
    arrivals.push({ text: decoder.decode(value, { stream: true }), at: performance.now() })
  }
  if (arrivals.length >= count) await reader.cancel()
  return arrivals
}

export interface ParsedEvent {
  event: string
  data: string
  id?: string
  retry?: number
}

/**
 * An SSE reader over a fetch body, as the HTML spec parses the stream: `next()` resolves with
 * the next event, or `undefined` when the stream ends; `close()` cancels it (the client leaves).
 */
export function sseReader(body: ReadableStream<Uint8Array>) {
  const reader = body.getReader()
  const decoder = new TextDecoder()
  let buffer = ''
  let ended = false
  const parse = (block: string): ParsedEvent => {
    const event: ParsedEvent = { event: 'message', data: '' }
    const data: string[] = []
    for (const line of block.split(/\r\n|\r|\n/)) {
      const colon = line.indexOf(':')
      const field = colon === -1 ? line : line.slice(0, colon)
      const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '')
      if (field === 'data') data.push(value)
      else if (field === 'event') event.event = value
      else if (field === 'id') event.id = value
      else if (field === 'retry') event.retry = Number(value)
    }
    event.data = data.join('\n')
    return event
  }
  return {
    async next(): Promise<ParsedEvent | undefined> {
      for (;;) {
        const end = buffer.indexOf('\n\n')
        if (end !== -1) {
          const block = buffer.slice(0, end)
          buffer = buffer.slice(end + 2)
          return parse(block)
        }
        if (ended) return undefined
        const { done, value } = await reader.read()
        if (done) ended = true
        else buffer += decoder.decode(value, { stream: true })
      }
    },
    /** Whether nothing more arrives within `ms` (the stream is open and idle). */
    async idleFor(ms: number): Promise<boolean> {
      const read = reader.read()
      const result = await Promise.race([read.then((r) => r), new Promise<'idle'>((resolve) => setTimeout(resolve, ms, 'idle'))])
      if (result === 'idle') {
        // The read stays pending; it settles when the stream is cancelled.
        read.catch(() => {})
        return true
      }
      if (result.done) ended = true
      else buffer += decoder.decode(result.value, { stream: true })
      return false
    },
    close: () => reader.cancel(),
  }
}
