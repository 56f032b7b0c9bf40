import { runLaunchers } from '@codebook/shared'
import type { ReactNode } from 'react'
import type { RunFormValues } from './run-form.ts'

type SlurmField = 'slurmPartition' | 'slurmNodes' | 'slurmTasksPerNode' | 'slurmTimeLimit'

const SLURM_FIELDS: { name: SlurmField; label: string; placeholder: string }[] = [
  { name: 'slurmPartition', label: 'Partition', placeholder: 'cluster default' },
  { name: 'slurmNodes', label: 'Nodes', placeholder: 'any' },
  { name: 'slurmTasksPerNode', label: 'Tasks per node', placeholder: 'any' },
  { name: 'slurmTimeLimit', label: 'Time limit', placeholder: 'e.g. 2:00:00' },
]

const LAUNCHER_LABELS: Record<RunFormValues['launcher'], string> = {
  local: 'local — worker processes on the server',
  slurm: 'slurm — a batch job (sbatch), one task per worker',
  join: 'join — wait for workers started by any means',
}

/**
 * The run form's launcher choice and its fields: Slurm's partition, nodes, tasks per node and
 * time limit; for `join` a note that the run page shows the command to start each worker with.
 */
export function LauncherFields(props: {
  values: RunFormValues
  set: <K extends SlurmField | 'launcher'>(key: K, value: RunFormValues[K]) => void
  fieldError: (name: SlurmField) => ReactNode
}) {
  const { values, set } = props
  return (
    <>
      <div className="field field-wide">
        <label htmlFor="run-launcher">Launcher</label>
        <select
          id="run-launcher"
          name="launcher"
          value={values.launcher}
          onChange={(e) => set('launcher', e.target.value as RunFormValues['launcher'])}
        >
          {runLaunchers.map((l) => (
            <option key={l} value={l}>
              {LAUNCHER_LABELS[l]}
            </option>
          ))}
        </select>
        {values.launcher === 'join' && (
          <span className="muted" data-testid="join-note">
            The run page shows the <code>CODEBOOK_JOIN_TOKEN=… codebook worker --join …</code> command to run
            on each worker host; the run waits for them.
          </span>
        )}
      </div>
      {values.launcher === 'slurm' &&
        SLURM_FIELDS.map((f) => (
          <div className="field" key={f.name}>
            <label htmlFor={`run-${f.name}`}>{f.label}</label>
            <input
              id={`run-${f.name}`}
              name={f.name}
              placeholder={f.placeholder}
              value={values[f.name]}
              onChange={(e) => set(f.name, e.target.value)}
            />
            {props.fieldError(f.name)}
          </div>
        ))}
    </>
  )
}
