import { lazy, Suspense, useEffect, useState } from 'react'
import { Link, Redirect, Route, Switch, useLocation, useRoute } from 'wouter'
import { useHealth } from './api/queries.ts'
import { type SocketStatus, useDatasetEventSocket } from './api/socket.ts'
import { ErrorBanner } from './components/error-banner.tsx'
import { pageTitle } from './components/page-title.ts'
import { TokenBanner } from './components/token-banner.tsx'
import { DatasetsPage } from './datasets/datasets-page.tsx'
import { EvaluationsPage } from './evaluations/evaluations-page.tsx'
import { ReductionsPage } from './reductions/reductions-page.tsx'
import { RunsPage } from './runs/runs-page.tsx'
import { VocabulariesPage } from './vocabularies/vocabularies-page.tsx'

// The detail page carries ECharts (most of the bundle): load it when first opened.
const DatasetDetailPage = lazy(() =>
  import('./datasets/dataset-detail-page.tsx').then((m) => ({ default: m.DatasetDetailPage })),
)

// The run page carries ECharts too.
const RunDetailPage = lazy(() =>
  import('./runs/run-detail-page.tsx').then((m) => ({ default: m.RunDetailPage })),
)

// The compare page carries ECharts too.
const RunComparePage = lazy(() =>
  import('./runs/run-compare-page.tsx').then((m) => ({ default: m.RunComparePage })),
)

// The evaluation page carries ECharts too.
const EvaluationDetailPage = lazy(() =>
  import('./evaluations/evaluation-detail-page.tsx').then((m) => ({ default: m.EvaluationDetailPage })),
)

// A study's page carries ECharts too.
const StudyDetailPage = lazy(() =>
  import('./reductions/study-detail-page.tsx').then((m) => ({ default: m.StudyDetailPage })),
)

// The topology editor carries React Flow and ECharts: load it when first opened.
const TopologyPage = lazy(() =>
  import('./topology/topology-page.tsx').then((m) => ({ default: m.TopologyPage })),
)

/** The application shell: sidebar, header with server health, and the routed page. */
export function App() {
  const socket = useDatasetEventSocket()
  // On a narrow screen the sidebar is a menu the header's button opens; a navigation closes it.
  const [navOpen, setNavOpen] = useState(false)
  const [path] = useLocation()
  // biome-ignore lint/correctness/useExhaustiveDependencies: closing on every route change is the point
  useEffect(() => setNavOpen(false), [path])
  return (
    <div className={`shell${navOpen ? ' shell-nav-open' : ''}`}>
      <Sidebar />
      {navOpen && <div className="nav-scrim" aria-hidden="true" onClick={() => setNavOpen(false)} />}
      <div className="main">
        <HeaderBar socket={socket} navOpen={navOpen} onToggleNav={() => setNavOpen((o) => !o)} />
        <main className="content">
          <TokenBanner />
          <ErrorBanner />
          <Switch>
            <Route path="/">
              <Redirect to="/datasets" replace />
            </Route>
            <Route path="/datasets" component={DatasetsPage} />
            <Route path="/datasets/:id">
              {(params) => (
                <Suspense fallback={<div className="card loading">Loading…</div>}>
                  <DatasetDetailPage key={params.id} id={params.id} />
                </Suspense>
              )}
            </Route>
            <Route path="/runs" component={RunsPage} />
            <Route path="/topology">
              <Suspense fallback={<div className="card loading">Loading…</div>}>
                <TopologyPage />
              </Suspense>
            </Route>
            <Route path="/topology/:id">
              {(params) => (
                <Suspense fallback={<div className="card loading">Loading…</div>}>
                  <TopologyPage key={params.id} id={params.id} />
                </Suspense>
              )}
            </Route>
            <Route path="/runs/compare">
              <Suspense fallback={<div className="card loading">Loading…</div>}>
                <RunComparePage />
              </Suspense>
            </Route>
            <Route path="/runs/:id">
              {(params) => (
                <Suspense fallback={<div className="card loading">Loading…</div>}>
                  <RunDetailPage key={params.id} id={params.id} />
                </Suspense>
              )}
            </Route>
            <Route path="/vocabularies" component={VocabulariesPage} />
            <Route path="/evaluations" component={EvaluationsPage} />
            <Route path="/evaluations/:id">
              {(params) => (
                <Suspense fallback={<div className="card loading">Loading…</div>}>
                  <EvaluationDetailPage key={params.id} id={params.id} />
                </Suspense>
              )}
            </Route>
            <Route path="/reductions" component={ReductionsPage} />
            <Route path="/reductions/:id">
              {(params) => (
                <Suspense fallback={<div className="card loading">Loading…</div>}>
                  <StudyDetailPage key={params.id} id={params.id} />
                </Suspense>
              )}
            </Route>
            <Route>
              <div className="page">
                <div className="card empty">
                  <strong>Page not found.</strong>
                  <Link href="/datasets">Go to Datasets</Link>
                </div>
              </div>
            </Route>
          </Switch>
        </main>
      </div>
    </div>
  )
}

function Sidebar() {
  const [onDatasets] = useRoute('/datasets/*?')
  const [onRuns] = useRoute('/runs/*?')
  const [onTopology] = useRoute('/topology/*?')
  const [onEvaluations] = useRoute('/evaluations/*?')
  const [onVocabularies] = useRoute('/vocabularies')
  const [onReductions] = useRoute('/reductions/*?')
  return (
    <aside className="sidebar" id="app-sidebar">
      <div className="sidebar-inner">
        <div className="brand">
          <svg viewBox="0 0 24 24" className="brand-mark" aria-hidden="true">
            <rect x="3" y="3" width="7" height="7" rx="1.5" />
            <rect x="14" y="3" width="7" height="7" rx="1.5" opacity="0.55" />
            <rect x="3" y="14" width="7" height="7" rx="1.5" opacity="0.55" />
            <rect x="14" y="14" width="7" height="7" rx="1.5" opacity="0.3" />
          </svg>
          <span>Codebook</span>
        </div>
        <nav className="nav" aria-label="Main">
          <div className="nav-section">Data</div>
          <Link href="/datasets" className={`nav-item${onDatasets ? ' nav-item-active' : ''}`}>
            Datasets
          </Link>
          <div className="nav-section">Compute</div>
          <Link href="/runs" className={`nav-item${onRuns ? ' nav-item-active' : ''}`}>
            Runs
          </Link>
          <Link href="/topology" className={`nav-item${onTopology ? ' nav-item-active' : ''}`}>
            Topology
          </Link>
          <Link href="/evaluations" className={`nav-item${onEvaluations ? ' nav-item-active' : ''}`}>
            Evaluation
          </Link>
          <Link href="/reductions" className={`nav-item${onReductions ? ' nav-item-active' : ''}`}>
            Reductions
          </Link>
          <div className="nav-section">Results</div>
          <Link href="/vocabularies" className={`nav-item${onVocabularies ? ' nav-item-active' : ''}`}>
            Vocabularies
          </Link>
        </nav>
        <div className="sidebar-foot">Visual vocabularies on a Map-Collective runtime</div>
      </div>
    </aside>
  )
}

function HeaderBar(props: { socket: SocketStatus; navOpen: boolean; onToggleNav: () => void }) {
  const health = useHealth()
  const ok = health.data?.status === 'ok'
  const [path] = useLocation()
  const title = pageTitle(path)
  useEffect(() => {
    document.title = `${title} · Codebook`
  }, [title])
  return (
    <header className="topbar">
      <button
        type="button"
        className="menu-button"
        aria-label="Menu"
        aria-controls="app-sidebar"
        aria-expanded={props.navOpen}
        onClick={props.onToggleNav}
      >
        <svg viewBox="0 0 24 24" aria-hidden="true">
          <path d="M4 7h16M4 12h16M4 17h16" />
        </svg>
      </button>
      <div className="topbar-title" data-testid="page-title">
        {title}
      </div>
      <div className="topbar-status">
        <span
          className={`health ${ok ? 'health-ok' : health.isPending ? 'health-pending' : 'health-down'}`}
          data-health={ok ? 'ok' : health.isPending ? 'pending' : 'down'}
        >
          <span className="health-dot" aria-hidden="true" />
          {ok
            ? `Server ok · v${health.data?.version} · ${health.data?.database}`
            : health.isPending
              ? 'Checking server…'
              : 'Server unreachable'}
        </span>
        <span className={`health ${props.socket === 'live' ? 'health-ok' : 'health-pending'}`}>
          <span className="health-dot" aria-hidden="true" />
          {props.socket === 'live'
            ? 'live events'
            : props.socket === 'connecting'
              ? 'connecting…'
              : 'events offline'}
        </span>
      </div>
    </header>
  )
}
