import { type Dataset, jobStatuses } from '@codebook/shared'
import { emptyRunFilters, type RunFilterValues, type RunSort, runSorts } from './run-filters.ts'

/** The runs list's search, filters (dataset, status, k, tag, date) and sort. */
export function RunFilterBar(props: {
  values: RunFilterValues
  onChange: (values: RunFilterValues) => void
  sort: RunSort
  onSort: (sort: RunSort) => void
  datasets: Dataset[] | undefined
}) {
  const v = props.values
  const set = (patch: Partial<RunFilterValues>) => props.onChange({ ...v, ...patch })
  return (
    <fieldset className="run-filters" aria-label="Search and filter runs">
      <div className="field field-wide">
        <label htmlFor="runs-q">Search</label>
        <input
          id="runs-q"
          type="search"
          value={v.q}
          placeholder="name, notes, tag, id or dataset"
          onChange={(e) => set({ q: e.target.value })}
        />
      </div>
      <div className="field">
        <label htmlFor="runs-dataset">Dataset</label>
        <select id="runs-dataset" value={v.datasetId} onChange={(e) => set({ datasetId: e.target.value })}>
          <option value="">any</option>
          {props.datasets?.map((d) => (
            <option key={d.id} value={d.id}>
              {d.name}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor="runs-status">Status</label>
        <select
          id="runs-status"
          value={v.status}
          onChange={(e) => set({ status: e.target.value as RunFilterValues['status'] })}
        >
          <option value="">any</option>
          {jobStatuses.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
      </div>
      <div className="field field-narrow">
        <label htmlFor="runs-k">k</label>
        <input id="runs-k" inputMode="numeric" value={v.k} onChange={(e) => set({ k: e.target.value })} />
      </div>
      <div className="field">
        <label htmlFor="runs-tag">Tag</label>
        <input id="runs-tag" value={v.tag} onChange={(e) => set({ tag: e.target.value })} />
      </div>
      <div className="field">
        <label htmlFor="runs-from">Created from</label>
        <input id="runs-from" type="date" value={v.from} onChange={(e) => set({ from: e.target.value })} />
      </div>
      <div className="field">
        <label htmlFor="runs-to">to</label>
        <input id="runs-to" type="date" value={v.to} onChange={(e) => set({ to: e.target.value })} />
      </div>
      <div className="field">
        <label htmlFor="runs-sort">Sort</label>
        <select id="runs-sort" value={props.sort} onChange={(e) => props.onSort(e.target.value as RunSort)}>
          {Object.entries(runSorts).map(([key, label]) => (
            <option key={key} value={key}>
              {label}
            </option>
          ))}
        </select>
      </div>
      <div className="field field-button">
        <button type="button" className="btn btn-ghost" onClick={() => props.onChange(emptyRunFilters)}>
          Clear
        </button>
      </div>
    </fieldset>
  )
}
