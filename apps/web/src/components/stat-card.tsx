import type { ReactNode } from 'react'

/** A small card with a label and a big value. */
export function StatCard(props: { label: string; value: ReactNode; hint?: ReactNode }) {
  return (
    <div className="stat-card">
      <div className="stat-label">{props.label}</div>
      <div className="stat-value num">{props.value}</div>
      {props.hint !== undefined && <div className="stat-hint">{props.hint}</div>}
    </div>
  )
}
