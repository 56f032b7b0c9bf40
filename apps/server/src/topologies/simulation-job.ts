import type { SimulateBroadcastRequest, Topology } from '@codebook/shared'
import type { KmeansWhatIf } from './simulate-core.ts'

/** One what-if sent to the simulation process (plain JSON over IPC). */
export type SimulationJob =
  | { kind: 'broadcast'; topology: Topology; request: SimulateBroadcastRequest }
  | { kind: 'kmeans'; topology: Topology; whatIf: KmeansWhatIf }

/** The simulation process's answer to job `id`: a result, or a coded error with its HTTP status. */
export type SimulationReply =
  | { id: number; ok: true; result: unknown }
  | { id: number; ok: false; status: number; code: string; message: string }
