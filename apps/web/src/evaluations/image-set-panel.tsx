import type { ImageSet } from '@codebook/shared'
import { type FormEvent, useRef, useState } from 'react'
import { useUploadImageSet } from '../api/evaluation-queries.ts'
import { toBannerError } from '../components/error-banner.tsx'
import { InlineError } from '../components/inline-error.tsx'
import { StatusBadge } from '../components/status-badge.tsx'
import { baseName, formatBytes, formatCount, formatDateTime } from '../lib/format.ts'
import {
  defaultImageSetForm,
  type ImageSetFormValues,
  kindOfFile,
  validateImageSetForm,
} from './image-set-form.ts'

/** The image sets card: the list (status, classes, images) and the upload form. */
export function ImageSetPanel(props: { imageSets: ImageSet[] | undefined; isPending: boolean }) {
  return (
    <section className="card" aria-label="Image sets">
      <div className="card-header">
        <h2>Image sets</h2>
        <span className="card-subtitle">
          labelled images: a zip with one folder per class, or a grid image cut into cells (labels by rows)
        </span>
      </div>
      {props.isPending ? (
        <div className="loading">Loading image sets…</div>
      ) : !props.imageSets ? (
        <div className="empty">Could not load image sets.</div>
      ) : props.imageSets.length === 0 ? (
        <div className="empty">
          <strong>No image sets yet.</strong>
          <span>Upload one below (the digits demo is seeded at the server's first start).</span>
        </div>
      ) : (
        <ImageSetTable imageSets={props.imageSets} />
      )}
      <ImageSetUploadForm />
    </section>
  )
}

function ImageSetTable(props: { imageSets: ImageSet[] }) {
  return (
    <div className="table-wrap">
      <table className="table table-compact">
        <thead>
          <tr>
            <th>Name</th>
            <th>Status</th>
            <th>Kind</th>
            <th className="right">Classes</th>
            <th className="right">Images</th>
            <th>Layout</th>
            <th>Created</th>
          </tr>
        </thead>
        <tbody>
          {props.imageSets.map((s) => (
            <tr key={s.id} data-image-set-id={s.id}>
              <td className="cell-name">{s.name}</td>
              <td>
                <div className="cell-status">
                  <StatusBadge status={s.status} />
                  {s.error && (
                    <span className="code-tag" title={s.error.message}>
                      {s.error.code}
                    </span>
                  )}
                </div>
                {s.error && <div className="field-error">{s.error.message}</div>}
              </td>
              <td>{s.kind}</td>
              <td className="right num" title={s.classes?.join(', ')}>
                {s.classes ? s.classes.length : '—'}
              </td>
              <td className="right num">{formatCount(s.count)}</td>
              <td className="num muted">
                {s.grid
                  ? `${s.grid.cellWidth}×${s.grid.cellHeight} px, ${s.grid.rowsPerClass} rows/class`
                  : 'folders'}
              </td>
              <td className="muted nowrap">{formatDateTime(s.createdAt)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}

/** Upload form: the file (picked or dropped), its name, and for a grid the cell size and rows per class. */
function ImageSetUploadForm() {
  const upload = useUploadImageSet()
  const inputRef = useRef<HTMLInputElement>(null)
  const [file, setFile] = useState<File | null>(null)
  const [values, setValues] = useState<ImageSetFormValues>(defaultImageSetForm)
  const [touched, setTouched] = useState(false)
  const [dragging, setDragging] = useState(false)
  const result = validateImageSetForm(values, file)
  const errors = result.ok ? {} : result.errors
  // The file is checked as soon as one is chosen; the rest once the user tried to upload.
  const shown = (name: keyof typeof errors) =>
    touched || (name === 'file' && file) ? errors[name] : undefined

  function choose(f: File | undefined) {
    if (!f) return
    setFile(f)
    upload.reset()
    const kind = kindOfFile(f.name)
    setValues((v) => ({ ...v, name: baseName(f.name), kind: kind ?? v.kind }))
  }
  function set<K extends keyof ImageSetFormValues>(key: K, value: ImageSetFormValues[K]) {
    setValues((v) => ({ ...v, [key]: value }))
    // A refusal answered the values that were sent: an edit makes it stale.
    if (upload.isError) upload.reset()
  }
  // The server's refusal where the user can fix it: a grid that does not tile the image at its cell size.
  const refused = upload.error ? toBannerError(upload.error) : null
  const gridRefusal = refused?.code === 'GRID_MISMATCH' && values.kind === 'grid' ? refused : null
  function onSubmit(e: FormEvent) {
    e.preventDefault()
    setTouched(true)
    if (!result.ok || !file) return
    upload.mutate(
      { query: result.query, file },
      {
        onSuccess: () => {
          setFile(null)
          setTouched(false)
          setValues(defaultImageSetForm)
          if (inputRef.current) inputRef.current.value = ''
        },
      },
    )
  }

  return (
    <form className="eval-upload" onSubmit={onSubmit} noValidate aria-label="Upload an image set">
      <label
        className={`dropzone eval-dropzone${dragging ? ' dropzone-active' : ''}`}
        onDragOver={(e) => {
          e.preventDefault()
          setDragging(true)
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={(e) => {
          e.preventDefault()
          setDragging(false)
          choose(e.dataTransfer.files[0])
        }}
      >
        <input
          ref={inputRef}
          type="file"
          className="visually-hidden"
          accept=".zip,.png,.jpg,.jpeg,application/zip,image/png,image/jpeg"
          aria-label="Choose an image set file"
          onChange={(e) => choose(e.target.files?.[0])}
        />
        <span className="dropzone-title">
          {file ? file.name : 'Drop a zip or a grid image here, or click'}
        </span>
        <span className="dropzone-hint">
          {file ? formatBytes(file.size) : 'zip: one folder per class (PNG/JPEG) · grid: PNG/JPEG'}
        </span>
      </label>
      {shown('file') && <span className="field-error">{shown('file')}</span>}
      <div className="eval-upload-fields">
        <div className="field">
          <label htmlFor="image-set-name">Name</label>
          <input
            id="image-set-name"
            value={values.name}
            aria-invalid={shown('name') ? true : undefined}
            onChange={(e) => set('name', e.target.value)}
          />
          {shown('name') && <span className="field-error">{shown('name')}</span>}
        </div>
        <div className="field">
          <label htmlFor="image-set-kind">Kind</label>
          <select
            id="image-set-kind"
            value={values.kind}
            onChange={(e) => set('kind', e.target.value as ImageSetFormValues['kind'])}
          >
            <option value="grid">grid image</option>
            <option value="zip">zip of class folders</option>
          </select>
        </div>
        {values.kind === 'grid' && (
          <>
            <div className="field">
              <label htmlFor="image-set-grid">Cell size (px)</label>
              <input
                id="image-set-grid"
                value={values.grid}
                placeholder="20x20"
                aria-invalid={shown('grid') || errors.grid ? true : undefined}
                onChange={(e) => set('grid', e.target.value)}
              />
              {errors.grid && <span className="field-error">{errors.grid}</span>}
              {gridRefusal && (
                <span className="field-error" role="alert" data-code={gridRefusal.code}>
                  {gridRefusal.message}
                </span>
              )}
            </div>
            <div className="field">
              <label htmlFor="image-set-rows">Rows per class</label>
              <input
                id="image-set-rows"
                inputMode="numeric"
                value={values.rowsPerClass}
                aria-invalid={errors.rowsPerClass ? true : undefined}
                onChange={(e) => set('rowsPerClass', e.target.value)}
              />
              {errors.rowsPerClass && <span className="field-error">{errors.rowsPerClass}</span>}
            </div>
          </>
        )}
        <div className="upload-actions">
          <button
            type="submit"
            className="btn btn-primary"
            disabled={upload.isPending || (touched && !result.ok) || (file !== null && !!errors.file)}
          >
            {upload.isPending ? 'Uploading…' : 'Upload image set'}
          </button>
        </div>
      </div>
      {!gridRefusal && <InlineError error={upload.error} />}
      {upload.isSuccess && (
        <div className="notice notice-success" role="status">
          <span>
            Uploaded as image set <strong>{upload.data.name}</strong> — {upload.data.status}.
          </span>
        </div>
      )}
    </form>
  )
}
