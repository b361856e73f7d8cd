import { describe, expect, it } from 'vitest'
import { createPipeline } from '../../src/harness/pipeline.js'

const pipeline = () => createPipeline({ sources: [], engine: { latency: 0 } })

describe('pipeline lifetimes: what ends open streams, hung requests and sockets', () => {
  it("a session's reset aborts that session's lifetime only", () => {
    const p = pipeline()
    const a = p.lifetime('a')
    const b = p.lifetime('b')
    expect(p.lifetime('a')).toBe(a)
    p.reset('a')
    expect(a.aborted).toBe(true)
    expect(b.aborted).toBe(false)
    // A new lifetime after the reset is live again.
    expect(p.lifetime('a').aborted).toBe(false)
  })

  it("everyone's reset and close() abort every lifetime", () => {
    const p = pipeline()
    const shared = p.lifetime()
    const a = p.lifetime('a')
    p.reset()
    expect(shared.aborted && a.aborted).toBe(true)
    const b = p.lifetime('b')
    p.close()
    expect(b.aborted).toBe(true)
  })
})
