/** The same worker, with the route table imported from the plugin's virtual module. */
import config from 'virtual:mockyard'
import { startWorker } from 'mockyard/browser'

const mocks = await startWorker({ config })
Object.assign(window, { mocks, config })
document.getElementById('status')!.textContent = 'ready'
