import type { Dataset } from '@codebook/shared'
import { Link, useLocation } from 'wouter'
import { ProgressBar } from '../components/progress-bar.tsx'
import { StatusBadge } from '../components/status-badge.tsx'
import { formatBytes, formatCount, formatDateTime } from '../lib/format.ts'
import { clusterDatasetHref } from './upload-advice.ts'

/** The datasets table; a row opens the dataset's detail page. */
export function DatasetTable(props: { datasets: Dataset[]; highlightId: string | null }) {
  const [, navigate] = useLocation()
  if (props.datasets.length === 0) {
    return (
      <div className="empty">
        <strong>No datasets yet.</strong>
        <span>Upload HOG vectors above, or import them with `codebook import` on the server.</span>
      </div>
    )
  }
  return (
    <div className="table-wrap">
      <table className="table table-clickable">
        <thead>
          <tr>
            <th>Name</th>
            <th>Status</th>
            <th>Format</th>
            <th className="right">n</th>
            <th className="right">d</th>
            <th>dtype</th>
            <th className="right">Size</th>
            <th>Created</th>
            <th>
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {props.datasets.map((d) => (
            <tr
              key={d.id}
              data-dataset-id={d.id}
              className={d.id === props.highlightId ? 'row-highlight' : undefined}
              onClick={() => navigate(`/datasets/${d.id}`)}
            >
              <td className="cell-name">
                <Link href={`/datasets/${d.id}`} onClick={(e) => e.stopPropagation()}>
                  {d.name}
                </Link>
              </td>
              <td>
                <div className="cell-status">
                  <StatusBadge status={d.status} />
                  {d.status === 'processing' && (
                    <ProgressBar fraction={d.progress} size="sm" label={`Processing ${d.name}`} />
                  )}
                  {d.status === 'failed' && d.error && <span className="code-tag">{d.error.code}</span>}
                </div>
              </td>
              <td>{d.format ?? <span className="muted">auto</span>}</td>
              <td className="right num">{formatCount(d.n)}</td>
              <td className="right num">{formatCount(d.d)}</td>
              <td className="num">{d.dtype ?? '—'}</td>
              <td className="right num">{formatBytes(d.sourceBytes)}</td>
              <td className="muted nowrap">{formatDateTime(d.createdAt)}</td>
              <td className="nowrap">
                {d.status === 'ready' && (
                  <Link
                    href={clusterDatasetHref(d.id)}
                    title="Open the run form with this dataset"
                    onClick={(e) => e.stopPropagation()}
                  >
                    Cluster this dataset
                  </Link>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}
