import type { Run } from '@codebook/shared'
import { Link } from 'wouter'
import { useDatasets } from '../api/queries.ts'
import { useTopologies } from '../api/topology-queries.ts'

/**
 * The dataset and the topology a run used, linked; a dataset or topology deleted since is named
 * as deleted (its id kept), never as a dead link.
 */
export function RunSources(props: { run: Run }) {
  const r = props.run
  const datasets = useDatasets()
  const topologies = useTopologies()
  const dataset = datasets.data?.find((d) => d.id === r.datasetId)
  const topologyId = r.params.topologyId
  const topology = topologyId === undefined ? undefined : topologies.data?.find((t) => t.id === topologyId)
  const version = r.params.topologyVersion
  return (
    <>
      {dataset ? (
        <Link href={`/datasets/${r.datasetId}`} data-testid="run-dataset">
          {dataset.name}
        </Link>
      ) : datasets.isSuccess ? (
        <span className="muted" data-testid="run-dataset" data-deleted="true">
          dataset <span className="num">{r.datasetId.slice(0, 8)}</span> (deleted)
        </span>
      ) : (
        <span className="num">{r.datasetId.slice(0, 8)}</span>
      )}
      {' · '}
      {topologyId === undefined ? (
        <span data-testid="run-topology">no topology (one rack)</span>
      ) : topology ? (
        <Link href={`/topology/${topologyId}`} data-testid="run-topology">
          topology {topology.name}
          {version !== undefined && ` v${version}`}
        </Link>
      ) : (
        <span className="muted" data-testid="run-topology" data-deleted={topologies.isSuccess || undefined}>
          topology <span className="num">{topologyId.slice(0, 8)}</span>
          {version !== undefined && ` v${version}`}
          {topologies.isSuccess && ' (deleted)'}
        </span>
      )}
      {r.params.mapping && (
        <span className="muted" data-testid="run-mapping" title={r.params.mapping.join(', ')}>
          {' · placed by '}
          {r.params.mappingPlanner ?? 'a mapping'}
        </span>
      )}
    </>
  )
}
