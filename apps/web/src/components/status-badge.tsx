import type { DatasetStatus, RunStatus } from '@codebook/shared'

/** A coloured pill for a dataset or run status. */
export function StatusBadge(props: { status: DatasetStatus | RunStatus }) {
  return (
    <span className={`badge badge-${props.status}`} data-status={props.status}>
      <span className="badge-dot" aria-hidden="true" />
      {props.status}
    </span>
  )
}
