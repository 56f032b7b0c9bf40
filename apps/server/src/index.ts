// The plugins' augmentations of FastifyInstance (app.io, app.runs, …) travel with the public types.
import './auth/auth-plugin.ts'
import './datasets/datasets-plugin.ts'
import './db/db-plugin.ts'
import './home/home-plugin.ts'
import './realtime/realtime-plugin.ts'
import './runs/runs-plugin.ts'

export { buildApp } from './app.ts'
export type { Config } from './config.ts'
export { loadConfig } from './config.ts'
export type { RunningServer } from './start-server.ts'
export { startServer } from './start-server.ts'
