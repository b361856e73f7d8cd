// The bundled example mocks: `npx mockyard` serves them when there is no mocks/config.js here.
// Paths resolve from this file's folder.
export default {
  routes: './routes.json',
  data: './data',
  latency: 250,
}
