import { assignmentFormats, type VocabularySummary, vocabularyExportFormats } from '@codebook/shared'
import { Link } from 'wouter'
import { assignmentsHref, pictureNamesHref, vocabularyExportHref } from '../api/vocabulary-client.ts'
import { formatBytes, formatCount, formatDateTime } from '../lib/format.ts'
import { formatInertia } from '../runs/run-format.ts'

/** The vocabularies table, newest first: links to run and dataset, downloads, evaluate, delete. */
export function VocabularyTable(props: {
  vocabularies: VocabularySummary[]
  onDelete: (v: VocabularySummary) => void
}) {
  if (props.vocabularies.length === 0) {
    return (
      <div className="empty">
        <strong>No vocabularies yet.</strong>
        <span>
          A run that succeeds leaves one: start a run on the <Link href="/runs">Runs</Link> page.
        </span>
      </div>
    )
  }
  return (
    <div className="table-wrap">
      <table className="table vocabulary-table">
        <thead>
          <tr>
            <th>Run</th>
            <th>Dataset</th>
            <th className="right">k</th>
            <th className="right">d</th>
            <th className="right">Inertia</th>
            <th className="right">Size</th>
            <th>Created</th>
            <th>Download</th>
            <th>Assignments</th>
            <th>
              <span className="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {props.vocabularies.map((v) => (
            <VocabularyRow key={v.id} v={v} onDelete={() => props.onDelete(v)} />
          ))}
        </tbody>
      </table>
    </div>
  )
}

function VocabularyRow(props: { v: VocabularySummary; onDelete: () => void }) {
  const { v } = props
  // Once the dataset is gone, assignments exist only if they were computed before.
  const assignable = v.datasetExists || v.assignmentsBytes !== null
  return (
    <tr data-vocabulary-id={v.id}>
      <td className="num" title={`vocabulary ${v.id}`}>
        <Link href={`/runs/${v.runId}`}>{v.runId.slice(0, 8)}</Link>
      </td>
      <td data-dataset-exists={v.datasetExists}>
        {v.datasetExists ? (
          <Link href={`/datasets/${v.datasetId}`}>{v.datasetName}</Link>
        ) : (
          <span className="muted" title={`dataset ${v.datasetId} was deleted`}>
            deleted
          </span>
        )}
      </td>
      <td className="right num">{formatCount(v.k)}</td>
      <td className="right num">{formatCount(v.d)}</td>
      <td className="right num">{formatInertia(v.inertia)}</td>
      <td className="right num nowrap">{v.sizeBytes === null ? 'missing' : formatBytes(v.sizeBytes)}</td>
      <td className="muted nowrap">{formatDateTime(v.createdAt)}</td>
      <td>
        <div className="download-links">
          {vocabularyExportFormats.map((f) => (
            <a key={f} className="download-link" href={vocabularyExportHref(v.id, f)} download>
              {f}
            </a>
          ))}
        </div>
      </td>
      <td>
        {assignable ? (
          <div
            className="download-links"
            title={
              v.assignmentsBytes === null
                ? 'Each vector’s word; computed on the first download (may take a while on large datasets)'
                : `Each vector’s word; cached (${formatBytes(v.assignmentsBytes)})`
            }
          >
            {assignmentFormats.map((f) => (
              <a
                key={f}
                className="download-link"
                href={assignmentsHref(v.id, f)}
                download
                data-assignments={f}
              >
                {f}
              </a>
            ))}
            {v.pictureNames && (
              <a
                className="download-link"
                href={pictureNamesHref(v.datasetId)}
                download
                data-picture-names
                title="Line i is the name of picture index i (the .npy's picture column holds the index)"
              >
                picture-names.txt
              </a>
            )}
          </div>
        ) : (
          <span className="muted">dataset deleted</span>
        )}
      </td>
      <td>
        <div className="row-actions">
          <Link
            href={`/evaluations?vocabulary=${encodeURIComponent(v.id)}`}
            className="btn btn-sm"
            title={`Open the evaluation form with this vocabulary (k = ${v.k}, d = ${v.d}): an image set's HOG patches are encoded with its centroids`}
          >
            Evaluate
          </Link>
          <button type="button" className="btn btn-sm btn-danger-outline" onClick={props.onDelete}>
            Delete
          </button>
        </div>
      </td>
    </tr>
  )
}
