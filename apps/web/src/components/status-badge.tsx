import type { DatasetStatus, JobStatus } from '@codebook/shared'

/** A coloured pill for a dataset or job (run, evaluation, study) status. */
export function StatusBadge(props: { status: DatasetStatus | JobStatus }) {
  return (
    <span className={`badge badge-${props.status}`} data-status={props.status}>
      <span className="badge-dot" aria-hidden="true" />
      {props.status}
    </span>
  )
}
