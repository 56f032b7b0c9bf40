import type { VocabularySummary } from '@codebook/shared'
import { useState } from 'react'
import { useVocabularies } from '../api/vocabulary-queries.ts'
import { Pager, pageOf } from '../components/pager.tsx'
import { DeleteVocabularyDialog } from './delete-vocabulary-dialog.tsx'
import { VocabularyTable } from './vocabulary-table.tsx'
import './vocabularies.css'

/** `/vocabularies`: every learned vocabulary with its downloads, assignments, evaluate and delete. */
export function VocabulariesPage() {
  const vocabularies = useVocabularies()
  const [page, setPage] = useState(0)
  const [deleting, setDeleting] = useState<VocabularySummary | null>(null)
  const shown = pageOf(vocabularies.data ?? [], page)
  return (
    <div className="page">
      <header className="page-header">
        <div>
          <h1>Vocabularies</h1>
          <p className="page-subtitle">
            The centroids of every succeeded run: download them, or each vector's word for bag-of-words per
            picture.
          </p>
        </div>
      </header>
      <section className="card" aria-label="Vocabularies">
        <div className="card-header">
          <h2>All vocabularies</h2>
          {vocabularies.data && <span className="card-subtitle num">{vocabularies.data.length} total</span>}
        </div>
        {vocabularies.isPending ? (
          <div className="loading">Loading vocabularies…</div>
        ) : vocabularies.data ? (
          <VocabularyTable vocabularies={shown.rows} onDelete={setDeleting} />
        ) : (
          <div className="empty">Could not load vocabularies.</div>
        )}
        <Pager page={shown.page} pages={shown.pages} onPage={setPage} />
      </section>
      {deleting && <DeleteVocabularyDialog vocabulary={deleting} onClose={() => setDeleting(null)} />}
    </div>
  )
}
