/**
 * A request's method in upper case, as the engine and the log read it. The methods clients send
 * come as they are (node's parser hands over the same upper-case strings every time), so they are
 * recognised before anything is converted: most requests convert nothing.
 */
export function upperCaseMethod(method: string): string {
  switch (method) {
    case 'GET':
    case 'POST':
    case 'PUT':
    case 'PATCH':
    case 'DELETE':
    case 'HEAD':
    case 'OPTIONS':
      return method
    default:
      return method.toUpperCase()
  }
}
