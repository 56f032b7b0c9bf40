import { type Dataset, hnswScalarTypes, runDefaults, type TopologySummary } from '@codebook/shared'
import { useQuery } from '@tanstack/react-query'
import { type FormEvent, type ReactNode, useEffect, useState } from 'react'
import { useLocation, useSearch } from 'wouter'
import { getRun } from '../api/client.ts'
import { queryKeys, useCreateRun, useServerLimits } from '../api/queries.ts'
import { useTopologies } from '../api/topology-queries.ts'
import { countOf, formatCount } from '../lib/format.ts'
import { LauncherFields } from './launcher-fields.tsx'
import {
  hnswFields,
  type RunFormValues,
  runFormChoices,
  runFormFromRun,
  runFormFromSearch,
  validateRunForm,
} from './run-form.ts'

type TextField = 'k' | 'maxIterations' | 'workers' | 'slots' | 'tol' | 'seed'

const TEXT_FIELDS: { name: TextField; label: string }[] = [
  { name: 'k', label: 'k (centroids)' },
  { name: 'maxIterations', label: 'Max iterations' },
  { name: 'workers', label: 'Workers' },
  { name: 'slots', label: 'Slots per worker' },
  { name: 'tol', label: 'tol' },
  { name: 'seed', label: 'Seed' },
]

const CHOICE_LABELS: Record<keyof typeof runFormChoices, string> = {
  broadcast: 'Broadcast',
  chainOrder: 'Chain order',
  aggregation: 'Aggregation',
  reduction: 'Reduction',
  algorithm: 'Algorithm',
  assignment: 'Assignment',
  approximateSearch: 'Approximate search',
  partials: 'Partial sums',
  encoding: 'Centroid encoding',
  init: 'Init',
}

/** Choices that only an approximate assignment uses. */
const APPROXIMATE_ONLY = new Set<string>(['approximateSearch'])

/**
 * The "New run" form: ready datasets only, saved topologies (with version), fixed choices as
 * selects, every server limit checked at its field before submit; a queued run opens its page.
 * `?topology=ID&version=N` in the address preselects a topology ("Run on this topology");
 * `?cloneOf=RUN` fills every field with that run's settings ("Run again").
 */
export function NewRunForm(props: { datasets: Dataset[] | undefined }) {
  const [, navigate] = useLocation()
  const search = useSearch()
  const create = useCreateRun()
  const limits = useServerLimits()
  const topologies = useTopologies()
  const [values, setValues] = useState<RunFormValues>(() => runFormFromSearch(search))
  const [touched, setTouched] = useState(false)
  const cloneOf = new URLSearchParams(search).get('cloneOf')
  const source = useQuery({
    queryKey: cloneOf === null ? ['runs', 'none'] : queryKeys.run(cloneOf),
    queryFn: () => getRun(cloneOf as string),
    enabled: cloneOf !== null,
  })
  const [clonedFrom, setClonedFrom] = useState<string | null>(null)
  // Filled once, when the source run arrives; later edits are the user's.
  useEffect(() => {
    if (source.data && clonedFrom !== source.data.id) {
      setValues(runFormFromRun(source.data))
      setClonedFrom(source.data.id)
    }
  }, [source.data, clonedFrom])
  const ready = (props.datasets ?? []).filter((d) => d.status === 'ready')
  // Until the user picks one, the newest ready dataset is chosen.
  const datasetId = values.datasetId !== '' ? values.datasetId : (ready[0]?.id ?? '')
  const dataset = ready.find((d) => d.id === datasetId)
  const topology = topologies.data?.find((t) => t.id === values.topologyId)
  const result = validateRunForm(
    { ...values, datasetId },
    { datasetN: dataset?.n ?? null, limits: limits.data ?? null, topology: topology ?? null },
  )
  const errors = result.ok ? {} : result.errors
  const kernels = limits.data?.kernels ?? [runDefaults.kernel]

  function set<K extends keyof RunFormValues>(key: K, value: RunFormValues[K]) {
    setValues((v) => ({ ...v, [key]: value }))
  }
  function onSubmit(e: FormEvent) {
    e.preventDefault()
    setTouched(true)
    if (!result.ok) return
    create.mutate(result.input, { onSuccess: (run) => navigate(`/runs/${run.id}`) })
  }
  // As typed: the fields whose limit depends on the dataset, the server or the topology; the rest once submitted.
  const live = new Set<keyof RunFormValues>(['k', 'workers', 'kernel', 'topologyVersion', 'slurmTimeLimit'])
  const shown = (name: keyof RunFormValues) => (touched || live.has(name) ? errors[name] : undefined)
  const fieldError = (name: keyof RunFormValues) =>
    shown(name) && (
      <span className="field-error" data-field-error={name}>
        {shown(name)}
      </span>
    )

  return (
    <section className="card" aria-label="New run">
      <div className="card-header">
        <h2>New run</h2>
        <span className="card-subtitle">K-means on the Map-Collective runtime</span>
      </div>
      <form onSubmit={onSubmit} noValidate>
        {cloneOf !== null && (
          <p className="notice" role="status" data-testid="run-clone-notice">
            {source.isError
              ? `Could not read run ${cloneOf.slice(0, 8)} to copy its settings.`
              : clonedFrom
                ? `Settings of run ${source.data?.name ?? clonedFrom.slice(0, 8)}: change what you like and start.`
                : 'Reading the settings of the run to copy…'}
          </p>
        )}
        <div className="run-form">
          <div className="field field-wide">
            <label htmlFor="run-dataset">Dataset</label>
            <select
              id="run-dataset"
              name="datasetId"
              value={datasetId}
              onChange={(e) => set('datasetId', e.target.value)}
            >
              {ready.length === 0 && <option value="">No ready dataset</option>}
              {ready.map((d) => (
                <option key={d.id} value={d.id}>
                  {d.name} — n {formatCount(d.n)}, d {formatCount(d.d)}
                </option>
              ))}
            </select>
            {fieldError('datasetId')}
          </div>
          <TopologyFields
            topologies={topologies.data}
            values={values}
            topology={topology}
            onTopology={(id) =>
              // A mapping names one topology's nodes: another topology drops it.
              setValues((v) => ({
                ...v,
                topologyId: id,
                topologyVersion: '',
                mapping: [],
                mappingPlanner: '',
              }))
            }
            onVersion={(version) => set('topologyVersion', version)}
            versionError={fieldError('topologyVersion')}
          />
          {values.topologyId !== '' && values.mapping.length > 0 && (
            <div className="field field-wide" data-testid="run-mapping">
              <span className="muted">
                placed by {values.mappingPlanner || 'a plan'}: worker i on node{' '}
                <span className="num">{values.mapping.slice(0, 8).join(', ')}</span>
                {values.mapping.length > 8 ? `, … (${formatCount(values.mapping.length)} workers)` : ''}
              </span>{' '}
              <button
                type="button"
                className="btn btn-small"
                onClick={() => setValues((v) => ({ ...v, mapping: [], mappingPlanner: '' }))}
              >
                Unplace
              </button>
              {fieldError('launcher')}
            </div>
          )}
          <LauncherFields values={values} set={set} fieldError={fieldError} />
          {TEXT_FIELDS.map((f) => (
            <div className="field" key={f.name}>
              <label htmlFor={`run-${f.name}`}>{f.label}</label>
              <input
                id={`run-${f.name}`}
                name={f.name}
                inputMode={f.name === 'tol' ? 'text' : 'numeric'}
                value={values[f.name]}
                aria-invalid={shown(f.name) ? true : undefined}
                onChange={(e) => set(f.name, e.target.value)}
              />
              {fieldError(f.name)}
            </div>
          ))}
          <SelectField
            name="kernel"
            label="Kernel"
            value={values.kernel}
            // A value the server does not list (it changed) stays visible, with the field's error.
            choices={kernels.includes(values.kernel) ? kernels : [values.kernel, ...kernels]}
            invalid={!!shown('kernel')}
            onChange={(v) => set('kernel', v)}
            error={fieldError('kernel')}
          />
          {(Object.keys(runFormChoices) as (keyof typeof runFormChoices)[])
            // The search of an approximate assignment means nothing for an exact one.
            .filter((name) => !APPROXIMATE_ONLY.has(name) || values.assignment === 'approximate')
            .map((name) => (
              <SelectField
                key={name}
                name={name}
                label={CHOICE_LABELS[name]}
                value={values[name]}
                choices={runFormChoices[name]}
                onChange={(v) => set(name, v as never)}
              />
            ))}
          {values.assignment === 'approximate' && (
            <>
              {hnswFields.map(([field, , label]) => (
                <div className="field" key={field}>
                  <label htmlFor={`run-${field}`}>HNSW {label}</label>
                  <input
                    id={`run-${field}`}
                    name={field}
                    inputMode="decimal"
                    placeholder="runtime default"
                    value={values[field]}
                    aria-invalid={shown(field) ? true : undefined}
                    onChange={(e) => set(field, e.target.value)}
                  />
                  {fieldError(field)}
                </div>
              ))}
              <SelectField
                name="hnswScalar"
                label="HNSW scalar (--hnsw-scalar)"
                value={values.hnswScalar}
                choices={['', ...hnswScalarTypes]}
                onChange={(v) => set('hnswScalar', v as RunFormValues['hnswScalar'])}
              />
            </>
          )}
        </div>
        {values.topologyId !== '' && (values.launcher ?? 'local') === 'local' && (
          <p className="muted" data-testid="run-link-speed-note">
            Local workers talk over loopback: the topology gives each worker its rack (chain order, intra- and
            cross-rack bytes), but its link speeds and latencies do not slow a local run. They drive the
            what-if and placement predictions.
          </p>
        )}
        <div className="run-form-actions">
          <button
            type="submit"
            className="btn btn-primary"
            disabled={create.isPending || ready.length === 0 || (touched && !result.ok)}
          >
            {create.isPending ? 'Starting…' : 'Start run'}
          </button>
          {dataset && (
            <span className="muted">
              {dataset.name}: n = {formatCount(dataset.n)}, so 1 ≤ k ≤ {formatCount(dataset.n)}
              {limits.data && ` · at most ${limits.data.maxWorkersPerRun} workers on this server`}
            </span>
          )}
        </div>
      </form>
    </section>
  )
}

/** One labelled select of fixed choices, with its field error. */
function SelectField(props: {
  name: keyof RunFormValues
  label: string
  value: string
  choices: readonly string[]
  invalid?: boolean
  onChange: (value: string) => void
  error?: ReactNode
}) {
  return (
    <div className="field">
      <label htmlFor={`run-${props.name}`}>{props.label}</label>
      <select
        id={`run-${props.name}`}
        name={props.name}
        value={props.value}
        aria-invalid={props.invalid || undefined}
        onChange={(e) => props.onChange(e.target.value)}
      >
        {props.choices.map((c) => (
          <option key={c} value={c}>
            {c === '' ? 'runtime default' : c}
          </option>
        ))}
      </select>
      {props.error}
    </div>
  )
}

/** Topology and version selects: none (one rack) or a saved topology, latest or a pinned version. */
function TopologyFields(props: {
  topologies: TopologySummary[] | undefined
  values: RunFormValues
  topology: TopologySummary | undefined
  onTopology: (id: string) => void
  onVersion: (version: string) => void
  versionError: ReactNode
}) {
  const { values, topology } = props
  // A preselected id that is not (or not yet) in the list still shows, so it is not silently dropped.
  const unknown = values.topologyId !== '' && topology === undefined
  const versions = topology
    ? Array.from({ length: topology.latestVersion }, (_, i) => topology.latestVersion - i)
    : []
  return (
    <>
      <div className="field field-wide">
        <label htmlFor="run-topology">Topology</label>
        <select
          id="run-topology"
          name="topologyId"
          value={values.topologyId}
          onChange={(e) => props.onTopology(e.target.value)}
        >
          <option value="">None — every worker on one rack</option>
          {unknown && (
            <option value={values.topologyId}>
              {values.topologyId.slice(0, 8)} ({props.topologies ? 'not found' : 'loading…'})
            </option>
          )}
          {props.topologies?.map((t) => (
            <option key={t.id} value={t.id}>
              {t.name} — v{t.latestVersion}, {countOf(t.nodes, 'node')} in {countOf(t.racks, 'rack')}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor="run-topology-version">Version</label>
        <select
          id="run-topology-version"
          name="topologyVersion"
          value={values.topologyVersion}
          disabled={values.topologyId === ''}
          onChange={(e) => props.onVersion(e.target.value)}
        >
          <option value="">{topology ? `latest (v${topology.latestVersion})` : 'latest'}</option>
          {versions.map((v) => (
            <option key={v} value={String(v)}>
              v{v}
            </option>
          ))}
          {values.topologyVersion !== '' && !versions.includes(Number(values.topologyVersion)) && (
            <option value={values.topologyVersion}>v{values.topologyVersion}</option>
          )}
        </select>
        {props.versionError}
      </div>
    </>
  )
}
