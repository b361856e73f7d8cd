/**
 * The text a test fails with for the exchanges that break the `validate` document
 * (src/harness/test-failures.ts): its first line and its fix follow from where the violations are.
 */
import { describe, expect, it } from 'vitest'
import { unmatchedFailure } from '../../src/harness/test-failures.js'

const REQUEST = 'POST /v1/orders 400: request#/body: the request body is not valid JSON, and POST /orders takes application/json'
const RESPONSE = "GET /v1/users 200: response users.json#/1: must have required property 'id' (response 200 of GET /users); schema api.yaml#/User/required"

const failure = (messages: string[]) => unmatchedFailure([], undefined, { document: 'api.yaml', messages })?.message

describe('violations of the validate document', () => {
  it('a request alone: fix the request', () => {
    expect(failure([REQUEST])).toBe(`[mockyard] a request breaks api.yaml in this test:\n${REQUEST}\nFix the app's request, or the document if it is wrong.`)
  })

  it('an answer alone: fix the data file', () => {
    expect(failure([RESPONSE])).toBe(`[mockyard] an answer breaks api.yaml in this test:\n${RESPONSE}\nFix the mock's data file, or the document if it is wrong.`)
  })

  it('both: fix either', () => {
    expect(failure([REQUEST, RESPONSE])).toBe(`[mockyard] 2 violations of api.yaml in this test:\n${REQUEST}\n${RESPONSE}\nFix the mock's data file or the app's request, or the document if it is wrong.`)
    expect(failure([REQUEST, REQUEST])).toBe(`[mockyard] 2 violations of api.yaml in this test:\n${REQUEST}\n${REQUEST}\nFix the app's request, or the document if it is wrong.`)
  })

  it('none: no failure', () => {
    expect(failure([])).toBeUndefined()
  })
})
