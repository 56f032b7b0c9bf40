import type { Topology, TopologyRecord, TopologyTextFormat } from '@codebook/shared'
import { useMutation } from '@tanstack/react-query'
import { useCallback, useEffect, useMemo, useState } from 'react'
import { Link } from 'wouter'
import { renderTopologyText } from '../api/topology-client.ts'
import { useSaveTopology, useTopologyVersions } from '../api/topology-queries.ts'
import { countOf } from '../lib/format.ts'
import { FlowCanvas, type Selection } from './flow-canvas.tsx'
import { canUndo, pushHistory, startHistory, undoHistory } from './history.ts'
import { exportFileName } from './import-format.ts'
import { Inspector } from './inspector.tsx'
import { PlacementPanel } from './placement-panel.tsx'
import { SitesView } from './sites-view.tsx'
import { moveNodeToRack, removeNode, removeRack, topologyCounts, validateTopology } from './topology-edit.ts'
import { WhatIfPanel } from './what-if-panel.tsx'

/** Saves `text` as a file download named `name`. */
function download(name: string, text: string, type: string) {
  const url = URL.createObjectURL(new Blob([text], { type }))
  const a = document.createElement('a')
  a.href = url
  a.download = name
  document.body.append(a)
  a.click()
  a.remove()
  setTimeout(() => URL.revokeObjectURL(url), 1000)
}

const EXPORTS: { format: TopologyTextFormat; label: string; type: string }[] = [
  { format: 'json', label: 'JSON', type: 'application/json' },
  { format: 'slurm', label: 'Slurm', type: 'text/plain' },
  { format: 'hadoop', label: 'Hadoop', type: 'text/plain' },
]

/**
 * The topology editor: the state is one `Topology` value with an undo history; the rack view
 * (React Flow), the side panel and the sites view all edit it through pure functions. Save sends
 * it as a new version (or creates the topology when `record` is null: an import not yet saved).
 */
export function TopologyEditor(props: {
  /** The stored version being edited, or null for an unsaved topology. */
  record: TopologyRecord | null
  initial: Topology
  onSaved: (record: TopologyRecord) => void
  /** Version picker: show another stored version (null = latest). */
  onPickVersion?: (version: number | null) => void
  onDiscard?: () => void
}) {
  const [history, setHistory] = useState(() => startHistory(props.initial))
  const [selection, setSelectionState] = useState<Selection>(null)
  const [token, setToken] = useState(0)
  const [view, setView] = useState<'racks' | 'sites'>('racks')
  const [message, setMessage] = useState('')
  const topology = history.present
  const dirty = topology !== props.initial
  const problems = useMemo(() => validateTopology(topology), [topology])
  const counts = topologyCounts(topology)
  const save = useSaveTopology()
  const versions = useTopologyVersions(props.record?.id ?? null)
  const exporter = useMutation({
    mutationFn: async (e: (typeof EXPORTS)[number]) => {
      const text = await renderTopologyText(e.format, topology)
      download(exportFileName(topology.name, e.format), text, e.type)
    },
  })

  const apply = useCallback((next: Topology, key: string | null = null) => {
    setHistory((h) => pushHistory(h, next, key))
  }, [])
  const setSelection = useCallback((s: Selection) => {
    setSelectionState(s)
    setToken((t) => t + 1)
  }, [])
  const undo = useCallback(() => {
    setHistory(undoHistory)
    setToken((t) => t + 1)
  }, [])
  const onMove = useCallback(
    (nodeName: string, rackName: string) =>
      setHistory((h) => pushHistory(h, moveNodeToRack(h.present, nodeName, rackName))),
    [],
  )

  // Ctrl+Z / ⌘Z undoes an editor step and Delete removes the selected node or rack, except inside
  // a form field (where the keys edit the text).
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const el = e.target as HTMLElement | null
      if (
        el &&
        (el.tagName === 'INPUT' ||
          el.tagName === 'TEXTAREA' ||
          el.tagName === 'SELECT' ||
          el.isContentEditable)
      )
        return
      if ((e.ctrlKey || e.metaKey) && !e.shiftKey && e.key.toLowerCase() === 'z') {
        e.preventDefault()
        undo()
      } else if (e.key === 'Delete' && selection) {
        e.preventDefault()
        const remove = selection.kind === 'node' ? removeNode : removeRack
        setHistory((h) => pushHistory(h, remove(h.present, selection.name)))
        setSelection(null)
      }
    }
    window.addEventListener('keydown', onKey)
    return () => window.removeEventListener('keydown', onKey)
  }, [undo, selection, setSelection])

  // Leaving with unsaved edits asks first.
  useEffect(() => {
    if (!dirty) return
    const onUnload = (e: BeforeUnloadEvent) => e.preventDefault()
    window.addEventListener('beforeunload', onUnload)
    return () => window.removeEventListener('beforeunload', onUnload)
  }, [dirty])

  const onSave = () => {
    const msg = message.trim()
    save.mutate(
      { id: props.record?.id ?? null, topology, ...(msg ? { message: msg } : {}) },
      {
        onSuccess: (record) => {
          setMessage('')
          props.onSaved(record)
        },
      },
    )
  }

  const record = props.record
  // An older version can be saved unchanged: that restores it as the newest.
  const olderVersion = record !== null && record.version < record.latestVersion
  return (
    <div className="topo-editor">
      <section className="card topo-toolbar-card" aria-label="Editor toolbar">
        <div className="topo-toolbar">
          <div className="topo-title">
            <h2>{topology.name || '(unnamed)'}</h2>
            <span className="muted num">
              {record
                ? `v${record.version}${record.version < record.latestVersion ? ` of ${record.latestVersion}` : ''}`
                : 'not saved'}
              {' · '}
              {countOf(counts.racks, 'rack')} · {countOf(counts.nodes, 'node')}
              {dirty && <span className="topo-dirty"> · unsaved changes</span>}
            </span>
          </div>
          <div className="topo-tabs" role="tablist" aria-label="View">
            {(['racks', 'sites'] as const).map((v) => (
              <button
                key={v}
                type="button"
                role="tab"
                aria-selected={view === v}
                className={`btn ${view === v ? 'btn-primary' : 'btn-ghost'}`}
                onClick={() => setView(v)}
              >
                {v === 'racks' ? 'Racks' : 'Sites'}
              </button>
            ))}
          </div>
          <button
            type="button"
            className="btn"
            onClick={undo}
            disabled={!canUndo(history)}
            title="Undo (Ctrl+Z)"
          >
            Undo
          </button>
          {record && props.onPickVersion && (
            <div className="field topo-version">
              <label htmlFor="topology-version">Version</label>
              <select
                id="topology-version"
                value={record.version === record.latestVersion ? '' : String(record.version)}
                onChange={(e) => props.onPickVersion?.(e.target.value === '' ? null : Number(e.target.value))}
              >
                <option value="">latest (v{record.latestVersion})</option>
                {(versions.data ?? []).map((v) => (
                  <option key={v.version} value={v.version}>
                    v{v.version}
                    {v.message ? ` — ${v.message}` : ''}
                  </option>
                ))}
              </select>
            </div>
          )}
          {record && (
            // The stored version shown, not the unsaved edits: a run pins a saved version.
            <Link
              href={`/runs?topology=${encodeURIComponent(record.id)}&version=${record.version}`}
              className="btn"
              title={dirty ? `Runs v${record.version} as saved, without the unsaved changes` : undefined}
            >
              Run on this topology
            </Link>
          )}
        </div>
        <div className="topo-savebar">
          <div className="field topo-message">
            <label htmlFor="topology-message">Version message (optional)</label>
            <input
              id="topology-message"
              value={message}
              maxLength={500}
              placeholder="e.g. moved node-7 to rack-2"
              onChange={(e) => setMessage(e.target.value)}
            />
          </div>
          <button
            type="button"
            className="btn btn-primary"
            disabled={problems.length > 0 || save.isPending || (record !== null && !dirty && !olderVersion)}
            onClick={onSave}
          >
            {save.isPending
              ? 'Saving…'
              : !record
                ? 'Save topology'
                : olderVersion && !dirty
                  ? `Restore v${record.version} as new version`
                  : 'Save as new version'}
          </button>
          {props.onDiscard && (
            <button type="button" className="btn btn-ghost" onClick={props.onDiscard}>
              Discard
            </button>
          )}
          {save.isSuccess && !dirty && <span className="topo-saved">Saved v{save.data.version}</span>}
          <fieldset className="topo-export" aria-label="Export">
            <span className="muted">Export</span>
            {EXPORTS.map((e) => (
              <button
                key={e.format}
                type="button"
                className="btn btn-ghost"
                disabled={problems.length > 0 || exporter.isPending}
                onClick={() => exporter.mutate(e)}
              >
                {e.label}
              </button>
            ))}
          </fieldset>
        </div>
        {problems.length > 0 && (
          <div className="notice notice-error topo-problems" role="alert" aria-label="Validation problems">
            <strong>
              {problems.length} problem{problems.length === 1 ? '' : 's'} to fix before saving:
            </strong>
            <ul>
              {problems.slice(0, 12).map((p) => (
                <li key={`${p.where}|${p.message}`}>
                  <span className="code-tag">{p.where}</span> {p.message}
                </li>
              ))}
              {problems.length > 12 && <li>… and {problems.length - 12} more</li>}
            </ul>
          </div>
        )}
      </section>
      {view === 'racks' ? (
        <div className="topo-workspace">
          <FlowCanvas topology={topology} selection={selection} onSelect={setSelection} onMove={onMove} />
          <Inspector
            topology={topology}
            selection={selection}
            token={token}
            apply={apply}
            onSelect={setSelection}
          />
        </div>
      ) : (
        <section className="card">
          <SitesView topology={topology} apply={apply} token={token} />
        </section>
      )}
      <WhatIfPanel topology={topology} valid={problems.length === 0} />
      <PlacementPanel topology={topology} saved={record} />
    </div>
  )
}
