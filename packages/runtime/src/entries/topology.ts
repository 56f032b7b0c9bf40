// @codebook/runtime/topology — racks and hosts: generate, parse and format topologies, place workers on racks.
export type { ChainOrderKind } from '../topology/chain-order.ts'
export { chainOrder, chainOrderKinds } from '../topology/chain-order.ts'
export type { TopologyFormat } from '../topology/formats/topology-format.ts'
export { formatTopology, parseTopology, topologyFormats } from '../topology/formats/topology-format.ts'
export type { GenerateTopologyOptions } from '../topology/generate.ts'
export { generateTopology } from '../topology/generate.ts'
export { mappedWorkerRacks, rackOfHost, workerRacks } from '../topology/load-topology.ts'
export { TopologyValidationError, validateTopology } from '../topology/validate-topology.ts'
