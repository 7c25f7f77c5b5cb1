// Checks the JSON summary of `consumer-demo service --json`, read from standard input, on its own
// terms (not with the demo's code): every request answered or dropped, every dropped request's
// backend call cancelled, every action counted. Exits 1 with the failed checks, 0 otherwise.
//
//   swift run consumer-demo service --requests 2000 --json | swift Example/scripts/check-service-summary.swift
import Foundation

let input = FileHandle.standardInput.readDataToEndOfFile()
guard let summary = (try? JSONSerialization.jsonObject(with: input)) as? [String: Any] else {
    print("check-service-summary: standard input is not a JSON object")
    exit(1)
}

/// The number at a dotted path, such as `store.completed`; NaN when missing.
func number(_ path: String) -> Double {
    var value: Any? = summary
    for key in path.split(separator: ".") {
        value = (value as? [String: Any])?[String(key)]
    }
    return (value as? NSNumber)?.doubleValue ?? .nan
}

let requests = number("requests")
let dropEvery = number("dropEvery")
let actions = ["received", "completed", "dropped", "audited"].map { number("store.\($0)") }.reduce(0, +)
let dispatches = ((summary["metrics"] as? [String: Any])?["dispatches"] as? [String: Double])?.values.reduce(0, +)
let checks: [(String, Bool)] = [
    ("requests > 0", requests > 0),
    ("answered + dropped = requests", number("responses.ok") + number("responses.dropped") == requests),
    (
        "dropped = one in every dropEvery",
        number("responses.dropped") == (dropEvery > 0 ? (requests / dropEvery).rounded(.down) : 0)
    ),
    ("store: received = requests", number("store.received") == requests),
    ("store: completed = answered", number("store.completed") == number("responses.ok")),
    ("store: nothing in flight", number("store.inFlight") == 0),
    ("audited = completed", number("store.audited") == number("store.completed")),
    ("audit entries = completed", number("auditEntries") == number("store.completed")),
    ("backend: started = requests", number("backend.started") == requests),
    ("backend: cancelled = dropped", number("backend.cancelled") == number("responses.dropped")),
    ("reporter saw the last value", number("reporter.lastCompleted") == number("store.completed")),
    ("dispatches counted = actions", dispatches == actions),
    ("reducer timings = actions", number("metrics.reducerLatency.count") == actions),
    (
        "throughput = requests / seconds",
        abs(number("requestsPerSecond") * number("seconds") - requests) < 1e-6 * requests
    ),
    ("nothingLost", summary["nothingLost"] as? Bool == true),
]
let failed = checks.filter { !$0.1 }.map(\.0)
if failed.isEmpty {
    print(
        "service summary: \(Int(requests)) requests, \(Int(number("requestsPerSecond"))) requests/s, all \(checks.count) checks hold"
    )
} else {
    print("service summary: failed checks: \(failed.joined(separator: "; "))")
    exit(1)
}
