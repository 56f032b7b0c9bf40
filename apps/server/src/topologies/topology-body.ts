import { z } from 'zod'

/**
 * Body limit of requests that carry a topology or its text: a 10,000-node topology is ≈ 0.7 MB of
 * JSON, over the 1 MiB default once wrapped and escaped.
 */
export const TOPOLOGY_BODY_LIMIT = 8 * 1024 * 1024

/**
 * The topology field of request bodies: any JSON, validated by `checkTopology` in the handler so
 * a bad topology answers 400 `INVALID_TOPOLOGY` with every issue's path, not a generic body
 * validation error.
 */
export const TopologyField = z
  .unknown()
  .describe(
    'A topology (the Topology schema, as in TopologyRecord.topology); checked by the server: 400 INVALID_TOPOLOGY',
  )
