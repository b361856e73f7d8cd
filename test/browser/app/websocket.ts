/**
 * A page whose routes hold `websocket` steps (docs/behaviour.md, "WebSocket"): the page's own
 * `WebSocket` is answered by the worker's script, with a helper the tests call to talk to it.
 */
import { startWorker } from 'mockyard/browser'

const mocks = await startWorker({
  config: {
    sources: [
      {
        file: 'websocket.ts',
        routes: {
          'v1/chat': {
            websocket: [
              { send: { type: 'welcome' } },
              { on: { type: 'ping' }, send: { type: 'pong', id: '${message.id}' } },
              { on: 'bye', send: 'see you', close: 1000 },
            ],
          },
        },
      },
    ],
  },
  latency: 0,
})

/** Opens a socket, sends the messages once the first one arrives, and resolves with what it received when it closes. */
function converse(url: string, messages: string[]): Promise<{ received: string[]; code: number }> {
  return new Promise((resolve) => {
    const socket = new WebSocket(url)
    const received: string[] = []
    socket.addEventListener('message', (event) => {
      received.push(String(event.data))
      if (received.length === 1) for (const message of messages) socket.send(message)
    })
    socket.addEventListener('close', (event) => resolve({ received, code: event.code }))
  })
}

Object.assign(window, { mocks, converse })
document.getElementById('status')!.textContent = 'ready'
