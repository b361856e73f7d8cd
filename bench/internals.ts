/**
 * The internal modules that the in-process bench measures one by one. The package does not
 * export them and its `dist/` is bundled, so bench/internals.mjs bundles this file from the
 * sources, the way the build does.
 */
export { startInterception } from '../src/node/interception/index.js'
export { createInstance } from '../src/config/instance.js'
export { interceptInstance } from '../src/node/intercept-instance.js'
export { attachContract } from '../src/check/contract.js'
