import { type Dataset, type DatasetFormat, datasetFormats } from '@codebook/shared'
import { type DragEvent, type FormEvent, useId, useRef, useState } from 'react'
import { Link } from 'wouter'
import { TOKEN_ERROR_CODES } from '../api/api-token.ts'
import { useDataset } from '../api/queries.ts'
import { ProgressBar } from '../components/progress-bar.tsx'
import {
  baseName,
  formatBytes,
  formatCount,
  formatDuration,
  formatPercent,
  formatRate,
} from '../lib/format.ts'
import { isSameFile } from './pending-upload.ts'
import { browserErrorMessage, clusterDatasetHref, duplicateNameWarning } from './upload-advice.ts'
import type { TusUploadController } from './use-tus-upload.ts'

const FORMAT_LABELS: Record<DatasetFormat, string> = {
  'hog-text': 'HOG text',
  npy: 'NumPy .npy',
  fvecs: '.fvecs (float32)',
  bvecs: '.bvecs (uint8)',
  csv: 'CSV',
}

/** The upload card: drop zone, name and format, then progress of the resumable upload. */
export function UploadPanel(props: { upload: TusUploadController; datasets: readonly Dataset[] }) {
  const { view, interrupted, start, cancel, discardInterrupted, reset } = props.upload
  const [file, setFile] = useState<File | null>(null)
  const [name, setName] = useState('')
  const [format, setFormat] = useState<DatasetFormat | ''>('')
  const [dragging, setDragging] = useState(false)
  const inputRef = useRef<HTMLInputElement>(null)
  const nameId = useId()
  const formatId = useId()
  const busy = view.phase === 'uploading' || view.phase === 'finishing'
  const duplicate = file ? duplicateNameWarning(name, props.datasets) : null

  function choose(chosen: File | undefined) {
    if (!chosen || busy) return
    if (inputRef.current) inputRef.current.value = ''
    // The interrupted upload's file again: resume at once, under the name chosen back then.
    if (interrupted && isSameFile(interrupted, chosen)) {
      setFile(null)
      start(chosen, { name: interrupted.name, format: interrupted.format })
      return
    }
    reset()
    setFile(chosen)
    setName(baseName(chosen.name))
  }

  function onDrop(e: DragEvent<HTMLElement>) {
    e.preventDefault()
    setDragging(false)
    choose(e.dataTransfer.files[0])
  }

  function onSubmit(e: FormEvent) {
    e.preventDefault()
    if (!file || name.trim() === '') return
    start(file, { name: name.trim(), format: format === '' ? null : format })
    setFile(null)
  }

  return (
    <section className="card upload-card" aria-label="Upload a dataset">
      <div className="card-header">
        <h2>Upload a dataset</h2>
        <span className="card-subtitle">
          Resumable: a dropped connection or a reload continues where it stopped.
        </span>
      </div>

      {interrupted && !busy && (
        <div className="notice notice-warning" role="status">
          <div>
            <strong>Upload interrupted — choose the same file to resume.</strong>
            <div className="notice-detail num">
              {interrupted.filename} · {formatBytes(interrupted.size)} ·{' '}
              {formatPercent(interrupted.size > 0 ? interrupted.bytesUploaded / interrupted.size : 0)}{' '}
              uploaded as “{interrupted.name}”
            </div>
          </div>
          <button type="button" className="btn btn-ghost" onClick={discardInterrupted}>
            Discard
          </button>
        </div>
      )}

      {!busy && (
        <label
          className={`dropzone${dragging ? ' dropzone-active' : ''}`}
          onDragOver={(e) => {
            e.preventDefault()
            setDragging(true)
          }}
          onDragLeave={() => setDragging(false)}
          onDrop={onDrop}
        >
          <input
            ref={inputRef}
            type="file"
            className="visually-hidden"
            aria-label="Choose a dataset file"
            onChange={(e) => choose(e.target.files?.[0])}
          />
          <svg className="dropzone-icon" viewBox="0 0 24 24" aria-hidden="true">
            <path d="M12 16V4m0 0-4 4m4-4 4 4M4 16v2a2 2 0 0 0 2 2h12a2 2 0 0 0 2-2v-2" />
          </svg>
          <span className="dropzone-title">
            Drop a file here or <span className="link">browse</span>
          </span>
          <span className="dropzone-hint">
            HOG text (.txt, .gz), .npy, .fvecs, .bvecs or .csv — up to many GB
          </span>
        </label>
      )}

      {file && !busy && (
        <form className="upload-form" onSubmit={onSubmit}>
          <div className="file-chip">
            <span className="file-chip-name">{file.name}</span>
            <span className="num muted">{formatBytes(file.size)}</span>
          </div>
          <div className="field">
            <label htmlFor={nameId}>Name</label>
            <input
              id={nameId}
              value={name}
              onChange={(e) => setName(e.target.value)}
              required
              maxLength={200}
              aria-describedby={duplicate ? `${nameId}-duplicate` : undefined}
            />
            {duplicate && (
              <span className="field-warning" id={`${nameId}-duplicate`} role="status">
                {duplicate}
              </span>
            )}
          </div>
          <div className="field">
            <label htmlFor={formatId}>Format</label>
            <select
              id={formatId}
              value={format}
              onChange={(e) => setFormat(e.target.value as DatasetFormat | '')}
            >
              <option value="">Auto-detect</option>
              {datasetFormats.map((f) => (
                <option key={f} value={f}>
                  {FORMAT_LABELS[f]}
                </option>
              ))}
            </select>
          </div>
          <div className="upload-actions">
            <button type="button" className="btn btn-ghost" onClick={() => setFile(null)}>
              Clear
            </button>
            <button type="submit" className="btn btn-primary" disabled={name.trim() === ''}>
              Upload
            </button>
          </div>
        </form>
      )}

      {busy && (
        <div className="upload-progress" aria-live="polite">
          <div className="upload-progress-head">
            <span>
              <strong>{view.name}</strong> <span className="muted">({view.filename})</span>
            </span>
            {view.phase === 'uploading' && (
              <button type="button" className="btn btn-ghost btn-danger" onClick={() => void cancel()}>
                Cancel
              </button>
            )}
          </div>
          <ProgressBar
            fraction={view.bytesTotal > 0 ? view.bytesSent / view.bytesTotal : 0}
            label="Upload progress"
          />
          <div className="upload-stats num">
            <span>
              {formatBytes(view.bytesSent)} of {formatBytes(view.bytesTotal)}
            </span>
            <span>{formatRate(view.bytesPerSecond)}</span>
            <span>ETA {view.phase === 'finishing' ? '0 s' : formatDuration(view.etaSeconds)}</span>
            {view.resumedFrom !== null && view.resumedFrom > 0 && (
              <span className="resumed" data-resumed-from={view.resumedFrom}>
                resumed at {formatPercent(view.resumedFrom / Math.max(1, view.bytesTotal))}
              </span>
            )}
            {view.phase === 'finishing' && <span>finishing…</span>}
          </div>
        </div>
      )}

      {view.phase === 'done' && view.datasetId && (
        <UploadOutcome datasetId={view.datasetId} filename={view.filename} name={view.name} onClose={reset} />
      )}

      {view.phase === 'failed' && view.error && (
        <div className="notice notice-error" role="alert" data-code={view.error.code}>
          <span>
            {!TOKEN_ERROR_CODES.has(view.error.code) && <span className="code-tag">{view.error.code}</span>}{' '}
            {view.error.message}
          </span>
          <button type="button" className="btn btn-ghost" onClick={reset}>
            Dismiss
          </button>
        </div>
      )}
    </section>
  )
}

/**
 * What became of an uploaded file: the bytes arrived, then the server imports them. Says
 * "processing" with its progress, then "ready" (with "Cluster this dataset") or "failed" with the
 * reason in browser words; never "OK" for a file whose import then fails.
 */
function UploadOutcome(props: { datasetId: string; filename: string; name: string; onClose: () => void }) {
  const dataset = useDataset(props.datasetId)
  const d = dataset.data
  const link = <Link href={`/datasets/${props.datasetId}`}>{d?.name ?? props.name}</Link>
  const close = (
    <button type="button" className="btn btn-ghost" onClick={props.onClose}>
      Close
    </button>
  )
  if (d?.status === 'failed')
    return (
      <div className="notice notice-error" role="alert" data-testid="upload-outcome" data-status="failed">
        <div>
          <strong>{props.filename} was uploaded but could not be imported</strong>{' '}
          <span className="code-tag">{d.error?.code ?? 'UNKNOWN'}</span>
          <div className="notice-detail">
            {d.error ? browserErrorMessage(d.error) : 'The server gave no reason.'} Dataset {link} keeps the
            error; delete it from its page.
          </div>
        </div>
        {close}
      </div>
    )
  if (d?.status === 'ready')
    return (
      <div className="notice notice-success" role="status" data-testid="upload-outcome" data-status="ready">
        <span>
          <strong>{props.filename}</strong> is ready as dataset {link} ({formatCount(d.n)} vectors ×{' '}
          {formatCount(d.d)}). <Link href={clusterDatasetHref(d.id)}>Cluster this dataset</Link>
        </span>
        {close}
      </div>
    )
  return (
    <div className="notice notice-info" role="status" data-testid="upload-outcome" data-status="processing">
      <div className="upload-outcome-processing">
        <span>
          Uploaded <strong>{props.filename}</strong>; importing it as dataset {link}…
        </span>
        <ProgressBar fraction={d?.progress ?? 0} label={`Importing ${props.name}`} />
      </div>
    </div>
  )
}
