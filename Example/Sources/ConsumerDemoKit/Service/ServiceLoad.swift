import Dispatch
import ReduxConsumer

/// The load `consumer-demo service` puts on the service.
struct ServiceLoad: Equatable, Sendable {
    /// How many requests in all.
    var requests = 10_000
    /// How many clients send them at once, each waiting for its answer before the next request.
    var concurrency = 64
    /// How long the simulated backend (and the audit log) takes to answer.
    var latencyMicroseconds = 100
    /// Every `dropEvery`-th request meets a slow backend and its client hangs up; 0 for none.
    var dropEvery = 10
    /// Seconds a request waits for its answer before the service drops it.
    var timeoutSeconds = 30

    /// How many requests are dropped: one in every `dropEvery`.
    var expectedDrops: Int {
        dropEvery > 0 ? requests / dropEvery : 0
    }
}

/// Serves `load` with a fresh service: `concurrency` client tasks send the requests, a reporter task
/// follows the number of answered requests, and the service shuts down gracefully at the end.
///
/// - Returns: What happened, with the checks that nothing was lost.
func serve(_ load: ServiceLoad) async -> ServiceSummary {
    let backend = Backend(latencyMicroseconds: load.latencyMicroseconds, slowEvery: load.dropEvery)
    let audit = SimulatedAuditLog(latencyMicroseconds: load.latencyMicroseconds)
    let service = RequestService(backend: backend, audit: audit, requestTimeout: Double(load.timeoutSeconds))
    let reporter = Task { await follow(service.store) }
    let start = DispatchTime.now().uptimeNanoseconds
    let responses = await withTaskGroup(of: ResponseCounts.self) { group in
        for client in 0..<load.concurrency {
            group.addTask {
                var counts = ResponseCounts()
                for id in stride(from: client, to: load.requests, by: load.concurrency) {
                    counts.add(await call(service, id: id, hangsUp: backend.isSlow(id)))
                }
                return counts
            }
        }
        return await group.reduce(into: ResponseCounts()) { $0.add($1) }
    }
    await service.shutdown()
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    reporter.cancel()  // ends its stream; it still reads what was buffered
    return ServiceSummary(
        load: load,
        seconds: seconds,
        responses: responses,
        state: service.store.state,
        auditEntries: await audit.entries.count,
        backend: backend.calls,
        reporter: await reporter.value,
        metrics: service.metrics.snapshot
    )
}

/// One client's request. A client whose backend call is slow hangs up at once: its handler's task
/// is cancelled, as a server framework does when the connection closes.
private func call(_ service: RequestService, id: Int, hangsUp: Bool) async -> Response {
    guard hangsUp else {
        return await service.handle(Request(id: id))
    }
    let handler = Task { await service.handle(Request(id: id)) }
    handler.cancel()
    return await handler.value
}

/// The reporter task: follows the number of answered requests, as a metrics exporter would.
/// Coalescing keeps it cheap however fast requests complete: it may skip values, never the last.
private func follow(_ store: Store<ServiceState>) async -> ReporterCounts {
    var counts = ReporterCounts()
    for await change in store.changes(of: \.completed, options: .instantly) {
        counts.updates += 1
        counts.lastCompleted = change.new
    }
    return counts
}

/// What the clients got back.
struct ResponseCounts: Equatable, Sendable, Codable {
    var ok = 0
    var dropped = 0
    var unavailable = 0

    mutating func add(_ response: Response) {
        switch response {
        case .ok: ok += 1
        case .dropped: dropped += 1
        case .unavailable: unavailable += 1
        }
    }

    mutating func add(_ other: ResponseCounts) {
        ok += other.ok
        dropped += other.dropped
        unavailable += other.unavailable
    }
}

/// What the reporter task saw.
struct ReporterCounts: Equatable, Sendable, Codable {
    /// Elements it read (the first is the value when it started).
    var updates = 0
    /// The last value of `completed` it read.
    var lastCompleted = 0
}
