import ReduxConsumer

/// The service's global state: what every request shares. Here, the counters an operator watches.
struct ServiceState: Equatable, Sendable {
    /// Requests admitted.
    var received = 0
    /// Requests answered.
    var completed = 0
    /// Requests that ended without an answer: the client hung up, or the timeout passed.
    var dropped = 0
    /// Answered requests written to the audit log (by an effect of the global store).
    var audited = 0

    /// Requests admitted and not finished yet.
    var inFlight: Int { received - completed - dropped }
}

/// What happens to the service's global state.
enum ServiceAction: Action, Equatable {
    case received
    case completed(id: Int)
    case dropped
    case audited

    /// The action's name without its payload, for metrics.
    var name: String {
        switch self {
        case .received: "received"
        case .completed: "completed"
        case .dropped: "dropped"
        case .audited: "audited"
        }
    }
}

let serviceReducer = Reducer<ServiceState> { (state, action: ServiceAction) in
    switch action {
    case .received: state.received += 1
    case .completed: state.completed += 1
    case .dropped: state.dropped += 1
    case .audited: state.audited += 1
    }
}

/// Writes every answered request to the audit log: async work of the global store that a graceful
/// shutdown waits for (`effectsIdle()`), so no entry is lost.
func auditEffect(_ log: any AuditLog, _ metrics: ServiceMetrics) -> Effect<ServiceState> {
    Effect.on(ServiceAction.self, when: { if case .completed = $0 { true } else { false } }) { action, context in
        guard case .completed(let id) = action else { return }
        try await log.write(id)
        metrics.willSend()
        await context.send(ServiceAction.audited)
    }
}
