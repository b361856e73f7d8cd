/**
 * The part of `@availity/api-core` (which ships no types) that the Availity-client test uses.
 */
declare module '@availity/api-core' {
  export interface AvApiConfig {
    [key: string]: unknown
    params?: Record<string, unknown>
    headers?: Record<string, string>
  }

  export interface AvApiResponse<T = unknown> {
    status: number
    data: T
    headers: Record<string, string>
  }

  export interface AvApiOptions {
    http: (config: AvApiConfig) => Promise<AvApiResponse>
    promise: PromiseConstructor
    merge: (target: object, ...sources: object[]) => object
    config?: AvApiConfig
  }

  export class AvNotification {
    constructor(options: AvApiOptions)
    query<T = unknown>(config?: AvApiConfig): Promise<AvApiResponse<T>>
    all<T = unknown>(config?: AvApiConfig): Promise<T[]>
    update<T = unknown>(id: string, data: unknown, config?: AvApiConfig): Promise<AvApiResponse<T>>
    patch<T = unknown>(id: string, data: unknown, config?: AvApiConfig): Promise<AvApiResponse<T>>
    deleteByTopic(topic: string, config?: AvApiConfig): Promise<AvApiResponse>
    getRequestUrl(): string
  }
}
