import type { Topology, TopologyTextFormat } from '@codebook/shared'
import { useMutation } from '@tanstack/react-query'
import { type FormEvent, useRef, useState } from 'react'
import { Link, useLocation } from 'wouter'
import { parseTopologyText } from '../api/topology-client.ts'
import { useDeleteTopology, useSaveTopology, useTopologies, useTopology } from '../api/topology-queries.ts'
import { countOf, formatDateTime } from '../lib/format.ts'
import { detectTopologyFormat, nameFromFile } from './import-format.ts'
import { generateTopology } from './topology-edit.ts'
import { TopologyEditor } from './topology-editor.tsx'
import './topology.css'

/**
 * `/topology` (list, generator, import; an import opens in the editor unsaved) and
 * `/topology/:id` (the editor on a stored topology, latest version unless another is picked).
 */
export function TopologyPage(props: { id?: string }) {
  return props.id === undefined ? <TopologyIndex /> : <StoredTopology id={props.id} />
}

function TopologyIndex() {
  const [, navigate] = useLocation()
  const [draft, setDraft] = useState<Topology | null>(null)
  if (draft)
    return (
      <div className="page page-wide">
        <Header subtitle="Imported — not saved yet. Edit it, then save it as a new topology." />
        <TopologyEditor
          record={null}
          initial={draft}
          onSaved={(r) => navigate(`/topology/${r.id}`)}
          onDiscard={() => setDraft(null)}
        />
      </div>
    )
  return (
    <div className="page">
      <Header subtitle="Sites, racks and nodes the collectives run on: edit, version, simulate." />
      <div className="grid-2 topo-start">
        <GeneratorCard onCreated={(id) => navigate(`/topology/${id}`)} />
        <ImportCard onParsed={setDraft} />
      </div>
      <TopologyList />
    </div>
  )
}

function Header(props: { subtitle: string; back?: boolean }) {
  return (
    <header className="page-header">
      <div>
        {props.back && (
          <div className="breadcrumb">
            <Link href="/topology">Topologies</Link>
          </div>
        )}
        <h1>Topology</h1>
        <p className="page-subtitle">{props.subtitle}</p>
      </div>
    </header>
  )
}

const GENERATOR_FIELDS = [
  { name: 'racks', label: 'Racks', min: 1, max: 200, integer: true },
  { name: 'nodesPerRack', label: 'Nodes per rack', min: 1, max: 1000, integer: true },
  { name: 'nodeGbps', label: 'Node Gbit/s', min: 0, max: 1e4, integer: false },
  { name: 'uplinkGbps', label: 'Rack uplink Gbit/s', min: 0, max: 1e5, integer: false },
] as const

type GeneratorField = (typeof GENERATOR_FIELDS)[number]['name']

function GeneratorCard(props: { onCreated: (id: string) => void }) {
  const save = useSaveTopology()
  const [name, setName] = useState('cluster')
  const [values, setValues] = useState<Record<GeneratorField, string>>({
    racks: '5',
    nodesPerRack: '30',
    nodeGbps: '1',
    uplinkGbps: '10',
  })
  const errors: Partial<Record<GeneratorField | 'name', string>> = {}
  if (name.trim() === '') errors.name = 'A name is needed'
  for (const f of GENERATOR_FIELDS) {
    const v = Number(values[f.name])
    if (
      values[f.name].trim() === '' ||
      !Number.isFinite(v) ||
      (f.integer && !Number.isInteger(v)) ||
      v <= f.min - (f.integer ? 1 : 0) ||
      v > f.max
    )
      errors[f.name] = f.integer ? `a whole number ${f.min}–${f.max}` : `a number > 0, at most ${f.max}`
  }
  const ok = Object.keys(errors).length === 0
  const onSubmit = (e: FormEvent) => {
    e.preventDefault()
    if (!ok) return
    const t = generateTopology({
      name: name.trim(),
      racks: Number(values.racks),
      nodesPerRack: Number(values.nodesPerRack),
      nodeGbps: Number(values.nodeGbps),
      uplinkGbps: Number(values.uplinkGbps),
    })
    save.mutate(
      { id: null, topology: t, message: 'generated' },
      { onSuccess: (record) => props.onCreated(record.id) },
    )
  }
  return (
    <section className="card" aria-label="New topology">
      <div className="card-header">
        <h2>New topology</h2>
        <span className="card-subtitle">One site of identical racks</span>
      </div>
      <form onSubmit={onSubmit} noValidate className="topo-generator">
        <div className="field field-wide">
          <label htmlFor="gen-name">Name</label>
          <input id="gen-name" value={name} onChange={(e) => setName(e.target.value)} />
          {errors.name && <span className="field-error">{errors.name}</span>}
        </div>
        {GENERATOR_FIELDS.map((f) => (
          <div className="field" key={f.name}>
            <label htmlFor={`gen-${f.name}`}>{f.label}</label>
            <input
              id={`gen-${f.name}`}
              className="num"
              inputMode="decimal"
              value={values[f.name]}
              aria-invalid={errors[f.name] ? true : undefined}
              onChange={(e) => setValues((v) => ({ ...v, [f.name]: e.target.value }))}
            />
            {errors[f.name] && <span className="field-error">{errors[f.name]}</span>}
          </div>
        ))}
        <div className="topo-generator-actions">
          <button type="submit" className="btn btn-primary" disabled={!ok || save.isPending}>
            {save.isPending ? 'Creating…' : 'Create topology'}
          </button>
          {ok && (
            <span className="muted num">
              {countOf(Number(values.racks) * Number(values.nodesPerRack), 'node')}
            </span>
          )}
        </div>
      </form>
    </section>
  )
}

function ImportCard(props: { onParsed: (t: Topology) => void }) {
  const input = useRef<HTMLInputElement>(null)
  const [format, setFormat] = useState<'auto' | TopologyTextFormat>('auto')
  const parse = useMutation({
    mutationFn: async (file: File) => {
      const text = await file.text()
      const f = format === 'auto' ? detectTopologyFormat(file.name, text) : format
      return parseTopologyText({
        format: f,
        text,
        ...(f === 'json' ? {} : { name: nameFromFile(file.name) }),
      })
    },
    onSuccess: props.onParsed,
  })
  return (
    <section className="card" aria-label="Import topology">
      <div className="card-header">
        <h2>Import</h2>
        <span className="card-subtitle">Opens in the editor, unsaved</span>
      </div>
      <p className="muted topo-import-help">
        Codebook JSON, a Slurm <code>topology.conf</code> (<code>SwitchName=s1 Nodes=tux[0-3]</code>) or a
        Hadoop rack map (<code>host /dc/rack</code> per line). Slurm and Hadoop files carry no speeds: nodes
        get 1 Gbit/s and 1 slot, uplinks 10 Gbit/s — edit them after import.
      </p>
      <div className="topo-import">
        <div className="field">
          <label htmlFor="import-format">Format</label>
          <select
            id="import-format"
            value={format}
            onChange={(e) => setFormat(e.target.value as 'auto' | TopologyTextFormat)}
          >
            <option value="auto">detect</option>
            <option value="json">JSON</option>
            <option value="slurm">Slurm topology.conf</option>
            <option value="hadoop">Hadoop rack map</option>
          </select>
        </div>
        <input
          ref={input}
          type="file"
          hidden
          aria-label="Topology file to import"
          accept=".json,.conf,.txt,.map,.topology,text/plain,application/json"
          onChange={(e) => {
            const file = e.target.files?.[0]
            if (file) parse.mutate(file)
            e.target.value = ''
          }}
        />
        <button
          type="button"
          className="btn btn-primary"
          disabled={parse.isPending}
          onClick={() => input.current?.click()}
        >
          {parse.isPending ? 'Reading…' : 'Import file…'}
        </button>
      </div>
    </section>
  )
}

function TopologyList() {
  const [, navigate] = useLocation()
  const list = useTopologies()
  const del = useDeleteTopology()
  return (
    <section className="card" aria-label="Topologies">
      <div className="card-header">
        <h2>Stored topologies</h2>
        {list.data && <span className="card-subtitle num">{list.data.length} total</span>}
      </div>
      {list.isPending ? (
        <div className="loading">Loading topologies…</div>
      ) : !list.data ? (
        <div className="empty">Could not load topologies.</div>
      ) : list.data.length === 0 ? (
        <div className="empty">No topologies yet. Create one or import a file.</div>
      ) : (
        <div className="table-wrap">
          <table className="table table-clickable">
            <thead>
              <tr>
                <th>Name</th>
                <th className="num">Version</th>
                <th className="num">Sites</th>
                <th className="num">Racks</th>
                <th className="num">Nodes</th>
                <th>Updated</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {list.data.map((t) => (
                <tr key={t.id} onClick={() => navigate(`/topology/${t.id}`)} data-topology={t.name}>
                  <td className="cell-name">
                    <Link href={`/topology/${t.id}`} onClick={(e) => e.stopPropagation()}>
                      {t.name}
                    </Link>
                  </td>
                  <td className="num">v{t.latestVersion}</td>
                  <td className="num">{t.sites}</td>
                  <td className="num">{t.racks}</td>
                  <td className="num">{t.nodes}</td>
                  <td>{formatDateTime(t.updatedAt)}</td>
                  <td>
                    <button
                      type="button"
                      className="btn btn-ghost"
                      disabled={del.isPending}
                      onClick={(e) => {
                        e.stopPropagation()
                        if (window.confirm(`Delete topology '${t.name}' and all its versions?`))
                          del.mutate(t.id)
                      }}
                    >
                      Delete
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  )
}

function StoredTopology(props: { id: string }) {
  const [version, setVersion] = useState<number | null>(null)
  const query = useTopology(props.id, version)
  const record = query.data
  return (
    <div className="page page-wide">
      <Header back subtitle="Drag nodes between racks, edit speeds, save a new version; simulate below." />
      {query.isPending ? (
        <div className="card loading">Loading topology…</div>
      ) : !record ? (
        <div className="card empty">Could not load this topology.</div>
      ) : (
        <TopologyEditor
          key={`${record.id}@${record.version}`}
          record={record}
          initial={record.topology}
          onSaved={() => setVersion(null)}
          onPickVersion={setVersion}
        />
      )}
    </div>
  )
}
