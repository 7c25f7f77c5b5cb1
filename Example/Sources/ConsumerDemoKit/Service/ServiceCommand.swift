import Dispatch
import Foundation
import ReduxConsumer

/// `consumer-demo service` from synchronous code: blocks the calling thread until the run is over.
/// Only for a thread of its own (the program's main thread), never from a task.
func runServiceCommandBlocking(arguments: [String], environment: DemoEnvironment) -> ExitStatus {
    let status = Lock(ExitStatus.success)
    let done = DispatchSemaphore(value: 0)
    Task {
        let result = await runServiceCommand(arguments: arguments, environment: environment)
        status.withLock { $0 = result }
        done.signal()
    }
    done.wait()
    return status.withLock { $0 }
}

/// Runs `consumer-demo service` with `arguments` (those after `service`), writing to
/// `environment`'s streams.
///
/// - Returns: `.success` when nothing was lost, `.serviceLostWork` otherwise, `.usageError` for a
///   bad command line.
func runServiceCommand(arguments: [String], environment: DemoEnvironment) async -> ExitStatus {
    let options: ServiceOptions
    do {
        options = try ServiceOptions.parse(arguments)
    } catch {
        environment.writeError(
            "consumer-demo: error: \(error.message)\nRun 'consumer-demo service --help' for usage.\n"
        )
        return .usageError
    }
    if options.wantsHelp {
        environment.write(ServiceOptions.help + "\n")
        return .success
    }
    let summary = await serve(options.load)
    environment.write((options.isJSON ? summary.json : summary.text) + "\n")
    for problem in summary.problems {
        environment.writeError("consumer-demo: error: lost work: \(problem)\n")
    }
    return summary.nothingLost ? .success : .serviceLostWork
}

extension ServiceSummary {
    /// The summary as one line of JSON with sorted keys.
    var json: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(self) else {
            return #"{"error":"unencodable summary"}"#
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// The summary for people.
    var text: String {
        let dispatched = metrics.dispatches.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
        let drops =
            switch dropEvery {
            case 0: "no client hangs up"
            case 1: "every client hangs up early"
            default: "every \(ordinal(dropEvery)) client hangs up early"
            }
        return """
            consumer-demo service: \(requests) requests from \(concurrency) concurrent clients
              backend latency \(latencyMicroseconds) µs; \(drops)

              served        \(requests) requests in \(fixed(seconds, 3)) s: \(Int(requestsPerSecond.rounded())) requests/s
              answered      \(responses.ok)
              dropped       \(responses.dropped) (\(backend.cancelled) backend calls cancelled with their page)
              audited       \(auditEntries) (audit effects awaited by the shutdown)
              reporter      \(reporter.updates) updates of completed (coalesced), last \(reporter.lastCompleted)
              dispatches    \(metrics.dispatches.values.reduce(0, +)): \(dispatched.joined(separator: ", "))
              reducer       \(latency(metrics.reducerLatency))
              notification  \(latency(metrics.notificationLatency))
              queue depth   mean \(fixed(metrics.queueDepth.mean, 1)), max \(metrics.queueDepth.max)
              \(nothingLost ? "nothing lost" : "LOST WORK: \(problems.count) checks failed")
            """
    }

    private func latency(_ summary: LatencyHistogram.Summary) -> String {
        let micro = { (nanoseconds: Double) in fixed(nanoseconds / 1_000, 1) + " µs" }
        return "mean \(micro(summary.meanNanoseconds)), p50 ≤ \(micro(Double(summary.p50Nanoseconds))), "
            + "p99 ≤ \(micro(Double(summary.p99Nanoseconds))), max \(micro(Double(summary.maxNanoseconds)))"
    }
}

/// `value` with `digits` decimals, independent of the locale.
private func fixed(_ value: Double, _ digits: Int) -> String {
    String(format: "%.\(digits)f", value)
}

/// 2nd, 3rd, 10th, 21st…
private func ordinal(_ number: Int) -> String {
    let suffix: String
    switch (number % 10, number % 100) {
    case (_, 11...13): suffix = "th"
    case (1, _): suffix = "st"
    case (2, _): suffix = "nd"
    case (3, _): suffix = "rd"
    default: suffix = "th"
    }
    return "\(number)\(suffix)"
}
