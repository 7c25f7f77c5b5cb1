import ReduxConsumer

/// A request, as a server framework would hand it over.
struct Request: Sendable {
    let id: Int
}

/// What a request gets back.
enum Response: Equatable, Sendable {
    case ok(Int)
    /// The client hung up (the handler's task was cancelled), or the timeout passed, first.
    case dropped
    /// The service is shutting down.
    case unavailable
}

/// A service in the shape to copy: an actor that owns the global store, serves each request with a
/// page store of its own, and shuts down gracefully.
actor RequestService {
    nonisolated let store: Store<ServiceState>
    nonisolated let metrics = ServiceMetrics()
    private let requestEffects: [Effect<RequestState>]
    private var isAccepting = true
    private let requestTimeout: Double

    /// - Parameters:
    ///   - backend: What each request calls (an effect of its page).
    ///   - audit: Where answered requests are recorded (an effect of the global store).
    ///   - requestTimeout: Seconds a request waits for its answer before it is dropped.
    init(backend: Backend, audit: any AuditLog, requestTimeout: Double = 30) {
        store = Store(initialState: ServiceState(), reducer: serviceReducer, effects: [auditEffect(audit, metrics)])
        metrics.attach(to: store)  // a middleware and a subscriber
        requestEffects = [backendCall(backend)]
        self.requestTimeout = requestTimeout
    }

    /// Serves one request with a page store of its own, which holds its state and runs its backend
    /// call; the page closes when the request ends, answered or not, and takes the call with it.
    func handle(_ request: Request) async -> Response {
        guard isAccepting else { return .unavailable }
        await send(.received)
        let page = PageStore(
            global: store,
            initialState: { _ in RequestState(id: request.id) },
            reducer: requestReducer,
            effects: requestEffects
        )
        await page.send(RequestAction.fetch)
        // `wait` throws if the client hangs up (the task is cancelled) or after `requestTimeout`.
        let answer = try? await page.wait(until: { $0.answer != nil }, timeout: requestTimeout).answer
        page.close()  // cancels the backend call if it still runs
        await page.effectsIdle()
        await send(answer.map { _ in .completed(id: request.id) } ?? .dropped)
        return answer.map(Response.ok) ?? .dropped
    }

    /// Stops admitting requests, waits for those in flight, then for the store's effects.
    func shutdown() async {
        isAccepting = false
        _ = try? await store.wait(until: { $0.inFlight == 0 })
        await store.effectsIdle()
    }

    /// Every send to the global store goes through here, to count the queue depth.
    private func send(_ action: ServiceAction) async {
        metrics.willSend()  // for the queue depth
        await store.send(action)
    }
}
