import { formatPercent } from '../lib/format.ts'

/** A horizontal progress bar with an accessible value; `label` names what progresses. */
export function ProgressBar(props: {
  fraction: number
  label: string
  size?: 'sm' | 'md'
  showText?: boolean
}) {
  const fraction = Math.min(1, Math.max(0, props.fraction))
  const percent = Math.floor(fraction * 100)
  return (
    <div className={`progress progress-${props.size ?? 'md'}`}>
      <div
        className="progress-track"
        role="progressbar"
        aria-label={props.label}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={percent}
      >
        <div className="progress-fill" style={{ width: `${fraction * 100}%` }} />
      </div>
      {props.showText !== false && <span className="progress-text num">{formatPercent(fraction)}</span>}
    </div>
  )
}
