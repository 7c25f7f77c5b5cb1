import ReduxConsumer
import Testing

@testable import ConsumerDemoKit

// The code of the README's and the DocC article's "Using it in a service" that is not the
// example's own (Example/Sources/ConsumerDemoKit/Service), compiled and run: stores per session,
// a route handler, and a service-lifecycle `Service`. `Service` and `gracefulShutdown()` stand in
// for swift-service-lifecycle's, which this package does not depend on.

struct SessionState: Equatable, Sendable {
    var visits = 0
}

enum SessionAction: Action {
    case visit
}

let sessionReducer = Reducer<SessionState> { (state, action: SessionAction) in
    switch action {
    case .visit: state.visits += 1
    }
}

actor Sessions {
    private var stores: [String: Store<SessionState>] = [:]

    func store(for session: String) -> Store<SessionState> {
        if let store = stores[session] { return store }
        let store = Store(initialState: SessionState(), reducer: sessionReducer)
        stores[session] = store
        return store
    }

    func end(_ session: String) {
        stores[session] = nil  // its effects are cancelled, its streams finish
    }
}

/// The body of a route: Hummingbird's `router.get("items/:id") { request, context in … }` and
/// Vapor's `app.get("items", ":id") { request in … }` call it with the id they parsed.
func getItem(id: Int, from service: RequestService) async -> (status: Int, body: String) {
    switch await service.handle(Request(id: id)) {
    case .ok(let answer): (200, "\(answer)")
    case .dropped: (504, "the backend did not answer in time")
    case .unavailable: (503, "shutting down")
    }
}

protocol Service: Sendable {
    func run() async throws
}

struct StoreService: Service {
    let service: RequestService

    func run() async throws {
        try? await gracefulShutdown()  // returns when the service group begins to shut down
        await service.shutdown()  // no new requests; those in flight finish; effects end
    }
}

/// Stands in for swift-service-lifecycle's `gracefulShutdown()`: returns when the test triggers it.
private func gracefulShutdown() async throws {
    await shutdownTrigger.wait()
}

private let shutdownTrigger = Trigger()

/// Something to wait for, once.
private final class Trigger: Sendable {
    private let stream = AsyncStream.makeStream(of: Void.self)

    func wait() async {
        for await _ in stream.stream {}
    }

    func fire() {
        stream.continuation.finish()
    }
}

struct UsingItInAServiceTests {
    /// Longer than the service's 30 s: in a full run on two cores, a request's backend task may
    /// queue behind the rest of the run for that long, and these tests expect every answer.
    static let requestTimeout: Double = 300

    @Test func eachSessionHasItsOwnStoreUntilItEnds() async {
        let sessions = Sessions()
        let alice = await sessions.store(for: "alice")
        await alice.send(SessionAction.visit)
        await sessions.store(for: "alice").send(SessionAction.visit)
        await sessions.store(for: "bob").send(SessionAction.visit)
        #expect(alice.state.visits == 2)
        #expect(await sessions.store(for: "bob").state.visits == 1)
        let aliceVisits = alice.changes(of: \.visits)
        await sessions.end("alice")
        #expect(await sessions.store(for: "alice").state.visits == 0)
        _ = consume alice
        var iterator = aliceVisits.makeAsyncIterator()
        #expect(await iterator.next() == nil)  // the old store is gone: its sequence finished
    }

    @Test func theRouteAnswersWithTheServiceResponse() async {
        let service = RequestService(
            backend: Backend(latencyMicroseconds: 0, slowEvery: 0),
            audit: SimulatedAuditLog(latencyMicroseconds: 0),
            requestTimeout: Self.requestTimeout
        )
        #expect(await getItem(id: 21, from: service) == (200, "42"))
        await service.shutdown()
        #expect(await getItem(id: 22, from: service) == (503, "shutting down"))
    }

    @Test func theLifecycleServiceShutsTheStoreDownGracefully() async throws {
        let audit = SimulatedAuditLog(latencyMicroseconds: 0)
        let service = RequestService(
            backend: Backend(latencyMicroseconds: 0, slowEvery: 0), audit: audit, requestTimeout: Self.requestTimeout)
        let lifecycle = Task { try await StoreService(service: service).run() }
        for id in 0..<10 {
            #expect(await service.handle(Request(id: id)) == .ok(id * 2))
        }
        shutdownTrigger.fire()
        try await lifecycle.value
        #expect(service.store.state == ServiceState(received: 10, completed: 10, dropped: 0, audited: 10))
        #expect(await audit.entries.count == 10)
        #expect(await service.handle(Request(id: 10)) == .unavailable)
    }
}
