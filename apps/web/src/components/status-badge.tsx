import type { DatasetStatus } from '@codebook/shared'

/** A coloured pill for a dataset status. */
export function StatusBadge(props: { status: DatasetStatus }) {
  return (
    <span className={`badge badge-${props.status}`} data-status={props.status}>
      <span className="badge-dot" aria-hidden="true" />
      {props.status}
    </span>
  )
}
