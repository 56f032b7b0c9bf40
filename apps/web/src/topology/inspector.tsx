import type { Topology } from '@codebook/shared'
import { countOf } from '../lib/format.ts'
import { NumberField, TextField } from './fields.tsx'
import type { Selection } from './flow-canvas.tsx'
import {
  addNode,
  addRack,
  findNode,
  findRack,
  moveNodeToRack,
  removeNode,
  removeRack,
  topologyCounts,
  updateNode,
  updateRack,
} from './topology-edit.ts'

/**
 * Applies an edit: the next topology, and a coalescing key (edits with the same key in a row are
 * one undo step, e.g. the keystrokes of one field), or null for a step of its own.
 */
export type Apply = (next: Topology, key?: string | null) => void

/** The side panel: fields of the selected machine or rack, or of the topology when none is selected. */
export function Inspector(props: {
  topology: Topology
  selection: Selection
  /** Changes whenever the selection does, so field edits of two selections never coalesce. */
  token: number
  apply: Apply
  onSelect: (s: Selection) => void
}) {
  const { topology: t, selection: sel, apply, token } = props
  if (sel?.kind === 'node') {
    const at = findNode(t, sel.name)
    const rack = at ? t.sites[at.site]!.racks[at.rack]! : undefined
    const node = at ? rack!.nodes[at.node]! : undefined
    if (node && rack)
      return (
        <aside className="topo-inspector" aria-label="Selected node">
          <div className="topo-inspector-head">
            <h3>Node</h3>
            <button type="button" className="btn btn-ghost" onClick={() => props.onSelect(null)}>
              Close
            </button>
          </div>
          <TextField
            id="node-name"
            label="Name"
            value={node.name}
            onCommit={(name) => {
              apply(updateNode(t, node.name, { name }), `name@${token}`)
              props.onSelect({ kind: 'node', name })
            }}
          />
          <TextField
            id="node-host"
            label="Host"
            value={node.host}
            onCommit={(host) => apply(updateNode(t, node.name, { host }), `host@${token}`)}
          />
          <NumberField
            id="node-nic"
            label="NIC Gbit/s"
            value={node.nicGbps}
            onCommit={(v) =>
              v !== undefined && apply(updateNode(t, node.name, { nicGbps: v }), `nic@${token}`)
            }
          />
          <NumberField
            id="node-slots"
            label="Slots"
            integer
            value={node.slots}
            onCommit={(v) =>
              v !== undefined && apply(updateNode(t, node.name, { slots: v }), `slots@${token}`)
            }
          />
          <div className="field">
            <label htmlFor="node-rack">Rack</label>
            <select
              id="node-rack"
              value={rack.name}
              onChange={(e) => apply(moveNodeToRack(t, node.name, e.target.value))}
            >
              {t.sites.flatMap((s) =>
                s.racks.map((r) => (
                  <option key={r.name} value={r.name}>
                    {t.sites.length > 1 ? `${s.name} / ${r.name}` : r.name}
                  </option>
                )),
              )}
            </select>
          </div>
          <div className="topo-inspector-actions">
            <button
              type="button"
              className="btn btn-danger-outline"
              onClick={() => {
                apply(removeNode(t, node.name))
                props.onSelect(null)
              }}
            >
              Remove node
            </button>
          </div>
        </aside>
      )
  }
  if (sel?.kind === 'rack') {
    const at = findRack(t, sel.name)
    const rack = at ? t.sites[at.site]!.racks[at.rack] : undefined
    if (rack)
      return (
        <aside className="topo-inspector" aria-label="Selected rack">
          <div className="topo-inspector-head">
            <h3>Rack</h3>
            <button type="button" className="btn btn-ghost" onClick={() => props.onSelect(null)}>
              Close
            </button>
          </div>
          <TextField
            id="rack-name"
            label="Name"
            value={rack.name}
            onCommit={(name) => {
              apply(updateRack(t, rack.name, { name }), `name@${token}`)
              props.onSelect({ kind: 'rack', name })
            }}
          />
          <NumberField
            id="rack-uplink"
            label="Uplink Gbit/s"
            value={rack.uplinkGbps}
            onCommit={(v) =>
              v !== undefined && apply(updateRack(t, rack.name, { uplinkGbps: v }), `uplink@${token}`)
            }
          />
          <NumberField
            id="rack-latency"
            label="Latency µs (node–switch)"
            optional
            value={rack.latencyUs}
            onCommit={(v) => apply(updateRack(t, rack.name, { latencyUs: v }), `latency@${token}`)}
          />
          <p className="muted topo-inspector-note num">
            {countOf(rack.nodes.length, 'node')},{' '}
            {countOf(
              rack.nodes.reduce((s, n) => s + n.slots, 0),
              'slot',
            )}
          </p>
          <div className="topo-inspector-actions">
            <button type="button" className="btn" onClick={() => apply(addNode(t, rack.name))}>
              Add node
            </button>
            <button
              type="button"
              className="btn btn-danger-outline"
              onClick={() => {
                apply(removeRack(t, rack.name))
                props.onSelect(null)
              }}
            >
              Remove rack
            </button>
          </div>
        </aside>
      )
  }
  const counts = topologyCounts(t)
  return (
    <aside className="topo-inspector" aria-label="Topology settings">
      <div className="topo-inspector-head">
        <h3>Topology</h3>
      </div>
      <TextField
        id="topology-name"
        label="Name"
        value={t.name}
        onCommit={(name) => apply({ ...t, name }, `tname@${token}`)}
      />
      <NumberField
        id="core-gbps"
        label="Core Gbit/s (empty = unbounded)"
        optional
        value={t.core?.bandwidthGbps}
        onCommit={(v) => {
          const { bandwidthGbps: _, ...core } = t.core ?? {}
          apply({ ...t, core: v === undefined ? core : { ...core, bandwidthGbps: v } }, `core@${token}`)
        }}
      />
      <p className="muted topo-inspector-note num">
        {countOf(counts.sites, 'site')} · {countOf(counts.racks, 'rack')} · {countOf(counts.nodes, 'node')} ·{' '}
        {countOf(counts.slots, 'slot')}
      </p>
      <p className="muted topo-inspector-note">
        Click a rack or node to edit it (Delete removes it); drag a node onto another rack to move it. Ctrl+Z
        undoes.
      </p>
      <div className="topo-inspector-actions">
        {t.sites.map((s, i) => (
          <button key={s.name} type="button" className="btn" onClick={() => apply(addRack(t, i))}>
            Add rack{t.sites.length > 1 ? ` to ${s.name}` : ''}
          </button>
        ))}
      </div>
    </aside>
  )
}
