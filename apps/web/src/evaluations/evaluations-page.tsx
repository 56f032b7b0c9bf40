import { useEvaluations, useFollowedEvaluations, useImageSets } from '../api/evaluation-queries.ts'
import { useEvaluationEvents } from './use-evaluation-events.ts'
import './evaluations.css'
import { EvaluationTable } from './evaluation-table.tsx'
import { ImageSetPanel } from './image-set-panel.tsx'
import { NewEvaluationForm } from './new-evaluation-form.tsx'

/** `/evaluations`: image sets (list and upload), the launch form and the table of evaluations. */
export function EvaluationsPage() {
  const socket = useEvaluationEvents(useFollowedEvaluations())
  const imageSets = useImageSets()
  const evaluations = useEvaluations(socket === 'live')
  return (
    <div className="page">
      <header className="page-header">
        <div>
          <h1>Evaluation</h1>
          <p className="page-subtitle">
            What a vocabulary buys a classifier: test accuracy against vocabulary size on a labelled image
            set.
          </p>
        </div>
      </header>
      <ImageSetPanel imageSets={imageSets.data} isPending={imageSets.isPending} />
      <NewEvaluationForm imageSets={imageSets.data} />
      <section className="card" aria-label="Evaluations">
        <div className="card-header">
          <h2>All evaluations</h2>
          {evaluations.data && <span className="card-subtitle num">{evaluations.data.length} total</span>}
        </div>
        {evaluations.isPending ? (
          <div className="loading">Loading evaluations…</div>
        ) : evaluations.data ? (
          <EvaluationTable evaluations={evaluations.data} />
        ) : (
          <div className="empty">Could not load evaluations.</div>
        )}
      </section>
    </div>
  )
}
