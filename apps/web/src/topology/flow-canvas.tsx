import type { Topology } from '@codebook/shared'
import {
  applyNodeChanges,
  Background,
  Controls,
  type Edge,
  type Node,
  type NodeChange,
  type NodeProps,
  type NodeTypes,
  ReactFlow,
  type ReactFlowInstance,
} from '@xyflow/react'
import { countOf } from '../lib/format.ts'
import '@xyflow/react/dist/style.css'
import { memo, useCallback, useEffect, useMemo, useRef, useState } from 'react'
import {
  dropTarget,
  type FlowCache,
  type FlowLayout,
  type MachineData,
  type RackData,
  type SiteData,
  topologyToFlow,
} from './flow-layout.ts'

/** What the side panel shows: a machine, a rack, or (null) the topology itself. */
export type Selection = { kind: 'node' | 'rack'; name: string } | null

const selectionId = (s: Selection) =>
  s === null ? null : s.kind === 'node' ? `node:${s.name}` : `rack:${s.name}`

const gbps = (g: number) => `${g} Gb/s`

const MachineNode = memo(function MachineNode(props: NodeProps<Node<MachineData, 'machine'>>) {
  const n = props.data.node
  return (
    <div
      className={`topo-machine${props.selected ? ' topo-machine-selected' : ''}`}
      data-node={n.name}
      data-rack={props.data.rack}
      title={`${n.name} · ${n.host} · ${n.slots} slot(s) · NIC ${gbps(n.nicGbps)}`}
    >
      <span className="topo-machine-name">{n.name}</span>
      <span className="topo-machine-meta num">
        {n.nicGbps} Gb · {n.slots} sl
      </span>
    </div>
  )
})

const RackNode = memo(function RackNode(props: NodeProps<Node<RackData, 'rack'>>) {
  const r = props.data.rack
  return (
    <div className={`topo-rack${props.selected ? ' topo-rack-selected' : ''}`} data-rack-box={r.name}>
      <div className="topo-rack-head">
        <span className="topo-rack-name">{r.name}</span>
        <span className="topo-rack-meta num">
          {countOf(r.nodes.length, 'node')} · uplink {gbps(r.uplinkGbps)}
        </span>
      </div>
    </div>
  )
})

const SiteNode = memo(function SiteNode(props: NodeProps<Node<SiteData, 'site'>>) {
  return (
    <div className="topo-site-label">
      <strong>{props.data.name}</strong>
      <span className="num">
        {' '}
        · {countOf(props.data.racks, 'rack')} · {countOf(props.data.nodes, 'node')}
      </span>
    </div>
  )
})

const FIT_VIEW = { padding: 0.08, maxZoom: 1.1 }
/** No links are drawn: the hierarchy is the nesting. One array, so React Flow sees no change. */
const NO_EDGES: Edge[] = []

// Defined once: React Flow re-mounts every node when nodeTypes changes identity.
const NODE_TYPES: NodeTypes = { machine: MachineNode, rack: RackNode, site: SiteNode }

/**
 * The rack view: racks as React Flow group nodes, machines as their children. Positions come from
 * the topology (`topologyToFlow`); a drag only moves the box until it is dropped, then `onMove`
 * re-parents the machine to the rack under its centre (or it snaps back).
 */
export function FlowCanvas(props: {
  topology: Topology
  selection: Selection
  onSelect: (s: Selection) => void
  onMove: (nodeName: string, rackName: string) => void
}) {
  const cache = useRef<FlowCache>(new Map())
  const selectedId = selectionId(props.selection)
  const layout = useMemo(
    () => topologyToFlow(props.topology, selectedId, cache.current),
    [props.topology, selectedId],
  )
  // React Flow's own copy while dragging; reset to the derived nodes whenever the topology changes.
  const [nodes, setNodes] = useState<Node[]>(layout.nodes as Node[])
  const [shown, setShown] = useState<FlowLayout>(layout)
  if (shown !== layout) {
    setShown(layout)
    setNodes(layout.nodes as Node[])
  }

  // Re-fit the view when the drawing changes size (a rack grew a column, a rack or site was added),
  // not on every edit: the view stays put while speeds are edited or nodes move within the bounds.
  const instance = useRef<ReactFlowInstance | null>(null)
  const bounds = [...layout.racks.values()].reduce((b, r) => `${b}|${r.x},${r.y},${r.width},${r.height}`, '')
  const firstBounds = useRef(bounds)
  useEffect(() => {
    if (bounds === firstBounds.current) return
    firstBounds.current = bounds
    void instance.current?.fitView({ ...FIT_VIEW, duration: 200 })
  }, [bounds])

  // Selection is ours (from the topology state), so React Flow's select changes are dropped.
  const onNodesChange = useCallback((changes: NodeChange[]) => {
    const kept = changes.filter((c) => c.type === 'position' || c.type === 'dimensions')
    if (kept.length > 0) setNodes((nds) => applyNodeChanges(kept, nds))
  }, [])

  const { onMove, onSelect } = props
  const onNodeDragStop = useCallback(
    (_: unknown, node: Node) => {
      if (node.type !== 'machine') return
      const data = node.data as MachineData
      const target = dropTarget(layout.racks, data.rack, node.position)
      if (target !== null && target !== data.rack) onMove(data.node.name, target)
      else setNodes(layout.nodes as Node[])
    },
    [layout, onMove],
  )

  const onNodeClick = useCallback(
    (_: unknown, node: Node) => {
      if (node.type === 'machine') onSelect({ kind: 'node', name: (node.data as MachineData).node.name })
      else if (node.type === 'rack') onSelect({ kind: 'rack', name: (node.data as RackData).rack.name })
    },
    [onSelect],
  )

  return (
    <div className="topo-canvas" data-testid="topology-canvas">
      <ReactFlow
        nodes={nodes}
        edges={NO_EDGES}
        nodeTypes={NODE_TYPES}
        onNodesChange={onNodesChange}
        onNodeDragStop={onNodeDragStop}
        onNodeClick={onNodeClick}
        onPaneClick={() => onSelect(null)}
        nodesConnectable={false}
        multiSelectionKeyCode={null}
        selectionKeyCode={null}
        deleteKeyCode={null}
        // Arrow keys would move boxes without re-parenting them; the side panel's Rack field is the
        // keyboard way to move a node.
        disableKeyboardA11y
        onInit={(i) => {
          instance.current = i
        }}
        fitView
        fitViewOptions={FIT_VIEW}
        minZoom={0.15}
        maxZoom={2}
      >
        <Background gap={24} size={1} />
        <Controls showInteractive={false} />
      </ReactFlow>
    </div>
  )
}
