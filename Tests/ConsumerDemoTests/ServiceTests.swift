import Foundation
import ReduxConsumer
import ReduxConsumerTestSupport
import Testing

@testable import ConsumerDemoKit

struct ServiceTests {
    /// The requests' timeout in these tests: a request's tasks may queue behind the rest of a full
    /// run (under ThreadSanitizer, minutes of it) without the service dropping it.
    static let requestTimeout = 300

    @Test(arguments: [
        (requests: 1_000, concurrency: 100), (requests: 300, concurrency: 1), (requests: 499, concurrency: 7),
    ])
    func manyConcurrentClientsLoseNothing(requests: Int, concurrency: Int) async {
        let load = ServiceLoad(
            requests: requests, concurrency: concurrency, latencyMicroseconds: 0, dropEvery: 0,
            timeoutSeconds: Self.requestTimeout)
        let summary = await serve(load)
        #expect(summary.problems == [])
        #expect(summary.responses == ResponseCounts(ok: requests, dropped: 0, unavailable: 0))
        #expect(
            summary.store
                == .init(received: requests, completed: requests, dropped: 0, audited: requests, inFlight: 0)
        )
        #expect(summary.auditEntries == requests)
        #expect(summary.reporter.lastCompleted == requests)
    }

    @Test func droppedRequestsCancelTheirBackendCalls() async {
        let summary = await serve(
            ServiceLoad(
                requests: 400, concurrency: 16, latencyMicroseconds: 0, dropEvery: 4,
                timeoutSeconds: Self.requestTimeout))
        #expect(summary.responses == ResponseCounts(ok: 300, dropped: 100, unavailable: 0))
        // `cancelled` is counted in the backend call's cancellation handler.
        #expect(summary.backend == Backend.Calls(started: 400, answered: 300, cancelled: 100))
        #expect(summary.problems == [])
    }

    @Test func aClientThatHangsUpCancelsItsBackendCallBeforeTheHandlerReturns() async {
        let backend = Backend(latencyMicroseconds: 0, slowEvery: 1)  // every call hangs
        let service = RequestService(
            backend: backend, audit: SimulatedAuditLog(latencyMicroseconds: 0),
            requestTimeout: Double(Self.requestTimeout))
        let handler = Task { await service.handle(Request(id: 0)) }
        handler.cancel()
        #expect(await handler.value == .dropped)
        #expect(backend.calls == Backend.Calls(started: 1, answered: 0, cancelled: 1))
        #expect(service.store.state == ServiceState(received: 1, completed: 0, dropped: 1, audited: 0))
    }

    @Test func shutdownWaitsForTheAuditEffectsThenRefusesRequests() async {
        let log = HeldAuditLog()
        let service = RequestService(
            backend: Backend(latencyMicroseconds: 0, slowEvery: 0), audit: log,
            requestTimeout: Double(Self.requestTimeout))
        await withTaskGroup(of: Void.self) { group in
            for id in 0..<20 {
                group.addTask { #expect(await service.handle(Request(id: id)) == .ok(id * 2)) }
            }
        }
        // Every request was answered; every audit write is held.
        #expect(service.store.state.completed == 20)
        #expect(await log.entries.isEmpty)
        let events = Recorder<String>()
        let shutdown = Task {
            await service.shutdown()
            events.append("shutdown returned")
        }
        events.append("released")
        await log.release()
        await shutdown.value
        #expect(events.values == ["released", "shutdown returned"])
        #expect(await log.entries.sorted() == Array(0..<20))
        #expect(service.store.state.audited == 20)
        #expect(await service.handle(Request(id: 20)) == .unavailable)
    }

    @Test func jsonSummaryParsesAndItsNumbersAddUp() async throws {
        let arguments = [
            "--requests", "300", "--concurrency=10", "--latency-us", "0", "--drop-every", "3", "--timeout-s=300",
            "--json",
        ]
        let run = await runService(arguments)
        #expect(run.status == .success)
        #expect(run.errors == "")
        #expect(run.output.split(separator: "\n").count == 1)
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any]
        )
        let number = { (path: String) -> Double in
            var value: Any? = json
            for key in path.split(separator: ".") { value = (value as? [String: Any])?[String(key)] }
            return (value as? NSNumber)?.doubleValue ?? .nan
        }
        #expect(number("requests") == 300)
        #expect(number("concurrency") == 10)
        #expect(number("responses.ok") == 200)
        #expect(number("responses.dropped") == 100)
        #expect(number("responses.ok") + number("responses.dropped") == number("requests"))
        #expect(number("store.received") == 300)
        #expect(number("store.inFlight") == 0)
        #expect(number("store.audited") == number("store.completed"))
        #expect(number("auditEntries") == number("store.completed"))
        #expect(number("backend.started") == number("backend.answered") + number("backend.cancelled"))
        #expect(number("backend.cancelled") == number("responses.dropped"))
        #expect(number("reporter.lastCompleted") == number("store.completed"))
        #expect(number("reporter.updates") >= 1)
        #expect(abs(number("requestsPerSecond") * number("seconds") - number("requests")) < 1e-6)
        let dispatches = try #require((json["metrics"] as? [String: Any])?["dispatches"] as? [String: Int])
        let actions = ["received", "completed", "dropped", "audited"].map { number("store.\($0)") }.reduce(0, +)
        #expect(Double(dispatches.values.reduce(0, +)) == actions)
        for latency in ["reducerLatency", "notificationLatency"] {
            #expect(number("metrics.\(latency).count") == actions)
            #expect(number("metrics.\(latency).p50Nanoseconds") <= number("metrics.\(latency).p99Nanoseconds"))
            #expect(number("metrics.\(latency).p99Nanoseconds") <= number("metrics.\(latency).maxNanoseconds"))
        }
        #expect(number("metrics.queueDepth.max") >= 1)
        #expect(json["nothingLost"] as? Bool == true)
        #expect((json["problems"] as? [String])?.isEmpty == true)
    }

    @Test func textSummaryNamesEachPartAndSaysNothingWasLost() async {
        let run = await runService([
            "--requests", "50", "--concurrency", "5", "--latency-us", "0", "--timeout-s", "300",
        ])
        #expect(run.status == .success)
        let lines = run.output.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(lines.first == "consumer-demo service: 50 requests from 5 concurrent clients")
        #expect(lines.dropFirst().first == "backend latency 0 µs; every 10th client hangs up early")
        let labels = lines.dropFirst(2).compactMap { $0.split(separator: " ").first.map(String.init) }
        #expect(
            labels == [
                "served", "answered", "dropped", "audited", "reporter", "dispatches", "reducer", "notification",
                "queue", "nothing",
            ]
        )
        #expect(lines.last == "nothing lost")
    }

    @Test func lostWorkFailsTheChecks() {
        let load = ServiceLoad(requests: 10, concurrency: 2, latencyMicroseconds: 0, dropEvery: 0)
        let summary = ServiceSummary(
            load: load,
            seconds: 1,
            responses: ResponseCounts(ok: 10),
            state: ServiceState(received: 10, completed: 10, dropped: 0, audited: 9),
            auditEntries: 9,
            backend: Backend.Calls(started: 10, answered: 10, cancelled: 0),
            reporter: ReporterCounts(updates: 3, lastCompleted: 10),
            metrics: ServiceMetrics().snapshot
        )
        #expect(!summary.nothingLost)
        #expect(summary.problems.contains("audited ≠ completed: audit effects lost"))
        #expect(summary.problems.contains("audit log entries ≠ completed"))
    }

    @Test(arguments: [
        (["--requests"], "option '--requests' needs a value: --requests N"),
        (["--requests", "-3"], "option '--requests' expects a whole number of at least 0, found \"-3\""),
        (["--concurrency=0"], "option '--concurrency' expects a whole number of at least 1, found \"0\""),
        (["--concurency", "4"], "unknown option \"--concurency\" for 'service'; did you mean '--concurrency'?"),
        (["--timeout-s=0"], "option '--timeout-s' expects a whole number of at least 1, found \"0\""),
    ])
    func badOptionsAreUsageErrors(arguments: [String], message: String) async {
        let run = await runService(arguments)
        #expect(run.status == .usageError)
        #expect(run.output == "")
        #expect(run.errors == "consumer-demo: error: \(message)\nRun 'consumer-demo service --help' for usage.\n")
    }

    @Test func helpDescribesTheOptions() async {
        let run = await runService(["--help"])
        #expect(run.status == .success)
        #expect(run.output.hasPrefix("Usage: consumer-demo service [options]\n"))
        #expect(run.output.contains("--drop-every N"))
        #expect(run.output.contains("--timeout-s N"))
    }
}

/// An audit log whose writes wait until the test releases them: a stalled disk.
private actor HeldAuditLog: AuditLog {
    private(set) var entries: [Int] = []
    private var isHeld = true
    private var held: [CheckedContinuation<Void, Never>] = []

    func write(_ id: Int) async {
        if isHeld {
            await withCheckedContinuation { held.append($0) }
        }
        entries.append(id)
    }

    func release() {
        isHeld = false
        for write in held { write.resume() }
        held = []
    }
}

/// Runs `consumer-demo service` in-process, from a task (the synchronous `runDemo` would block it).
private func runService(_ arguments: [String]) async -> DemoRun {
    let output = Lock("")
    let errors = Lock("")
    let environment = DemoEnvironment(
        variables: [:],
        isInputTerminal: false,
        isOutputTerminal: false,
        readLine: { nil },
        readFile: { _ throws(FileReadError) in throw FileReadError(reason: "not used") },
        write: { text in output.withLock { $0 += text } },
        writeError: { text in errors.withLock { $0 += text } }
    )
    let status = await runServiceCommand(arguments: arguments, environment: environment)
    return DemoRun(status: status, output: output.withLock { $0 }, errors: errors.withLock { $0 })
}
