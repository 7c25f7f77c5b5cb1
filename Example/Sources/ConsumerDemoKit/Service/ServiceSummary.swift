/// The outcome of one `consumer-demo service` run: what the clients, the store, the backend, the
/// audit log and the reporter saw, the operator metrics, and the checks that nothing was lost.
struct ServiceSummary: Equatable, Sendable, Codable {
    var requests: Int
    var concurrency: Int
    var latencyMicroseconds: Int
    var dropEvery: Int
    var seconds: Double
    var requestsPerSecond: Double
    var responses: ResponseCounts
    var store: StoreCounts
    var auditEntries: Int
    var backend: Backend.Calls
    var reporter: ReporterCounts
    var metrics: ServiceMetrics.Snapshot
    /// What does not add up; empty when nothing was lost.
    var problems: [String]
    var nothingLost: Bool

    /// The global state's counters.
    struct StoreCounts: Equatable, Sendable, Codable {
        var received: Int
        var completed: Int
        var dropped: Int
        var audited: Int
        var inFlight: Int
    }

    init(
        load: ServiceLoad,
        seconds: Double,
        responses: ResponseCounts,
        state: ServiceState,
        auditEntries: Int,
        backend: Backend.Calls,
        reporter: ReporterCounts,
        metrics: ServiceMetrics.Snapshot
    ) {
        requests = load.requests
        concurrency = load.concurrency
        latencyMicroseconds = load.latencyMicroseconds
        dropEvery = load.dropEvery
        self.seconds = seconds
        requestsPerSecond = seconds > 0 ? Double(load.requests) / seconds : 0
        self.responses = responses
        store = StoreCounts(
            received: state.received,
            completed: state.completed,
            dropped: state.dropped,
            audited: state.audited,
            inFlight: state.inFlight
        )
        self.auditEntries = auditEntries
        self.backend = backend
        self.reporter = reporter
        self.metrics = metrics
        problems = []
        nothingLost = true
        problems = check(expectedDrops: load.expectedDrops)
        nothingLost = problems.isEmpty
    }

    /// The checks that every request, action, backend call and audit entry is accounted for.
    func check(expectedDrops: Int) -> [String] {
        let actions = store.received + store.completed + store.dropped + store.audited
        let checks: [(holds: Bool, problem: String)] = [
            (responses.ok + responses.dropped == requests, "answered + dropped ≠ requests"),
            (responses.unavailable == 0, "requests refused before the shutdown"),
            (responses.dropped == expectedDrops, "dropped ≠ the \(expectedDrops) clients that hung up"),
            (store.received == requests, "the store received ≠ requests"),
            (store.completed == responses.ok, "the store's completed ≠ answered"),
            (store.dropped == responses.dropped, "the store's dropped ≠ dropped"),
            (store.inFlight == 0, "requests still in flight after the shutdown"),
            (store.audited == store.completed, "audited ≠ completed: audit effects lost"),
            (auditEntries == store.completed, "audit log entries ≠ completed"),
            (backend.started == requests, "backend calls started ≠ requests"),
            (backend.answered == responses.ok, "backend answers ≠ answered requests"),
            (backend.cancelled == responses.dropped, "cancelled backend calls ≠ dropped requests"),
            (reporter.lastCompleted == store.completed, "the reporter's last value ≠ completed"),
            (metrics.dispatches.values.reduce(0, +) == actions, "dispatches counted ≠ actions reduced"),
            (metrics.reducerLatency.count == actions, "reducer timings ≠ actions reduced"),
        ]
        return checks.filter { !$0.holds }.map(\.problem)
    }
}
