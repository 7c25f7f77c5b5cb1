import Dispatch
import Foundation
import ReduxConsumer
import ReduxConsumerDiff

/// The state of the replay scenarios: small and `Codable`.
struct ReplayBenchState: Codable, Equatable, Sendable {
    var counter = 0
    var total = 0
    var name = ""
}

/// Small actions: R1 records them through their synthesized `Codable` conformance, R2 through a
/// hand-written codec (`scriptLine`).
enum ReplayBenchAction: Action, Codable, Equatable {
    case increment
    case add(Int)
    case rename(String)

    /// The `index`-th action of the scenarios' session: a fixed mix of the three cases.
    static func session(_ index: Int) -> ReplayBenchAction {
        switch index % 3 {
        case 0: .increment
        case 1: .add(index % 100)
        default: .rename(replayBenchNames[index % replayBenchNames.count])
        }
    }

    /// The action in one short word: `i`, `a42`, `rKim`.
    var scriptLine: String {
        switch self {
        case .increment: "i"
        case .add(let amount): "a\(amount)"
        case .rename(let name): "r\(name)"
        }
    }

    /// Reads back `scriptLine`.
    init(scriptLine: String) throws {
        switch scriptLine.first {
        case "i": self = .increment
        case "a":
            guard let amount = Int(scriptLine.dropFirst()) else { throw ReplayBenchError.badLine(scriptLine) }
            self = .add(amount)
        case "r": self = .rename(String(scriptLine.dropFirst()))
        default: throw ReplayBenchError.badLine(scriptLine)
        }
    }
}

enum ReplayBenchError: Error {
    case badLine(String)
}

private let replayBenchNames = ["Kim", "Lee", "Park", "Choi", "Jung"]

let replayBenchReducer = Reducer<ReplayBenchState> { (state, action: ReplayBenchAction) in
    switch action {
    case .increment: state.counter += 1
    case .add(let amount): state.total += amount
    case .rename(let name): state.name = name
    }
}

/// R2's hash: three fields mixed by hand, the kind of function the documentation recommends for
/// a large state (hash what the session changes).
private let fieldsHash = StateHash<ReplayBenchState>(name: "bench-fields") { state in
    var hash = UInt64(bitPattern: Int64(state.counter)) &* 0x9E37_79B9_7F4A_7C15
    hash = (hash ^ UInt64(bitPattern: Int64(state.total))) &* 0xBF58_476D_1CE4_E5B9
    for byte in state.name.utf8 {
        hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
    }
    return hash
}

/// One line as Foundation's `JSONDecoder` would read it, for R1's comparison figure.
private struct FoundationLine: Decodable {
    let index: Int
    let type: String
    let action: ReplayBenchAction
    let hash: String
}

/// R1: the default path. Records a session of small actions to a temporary file through their
/// synthesized `Codable` conformance, with the structural hash after every action and a snapshot
/// every 100,000; replays it from the file into a store, verifying every hash.
func replayCodable(_ sizes: Sizes) -> Report {
    var codecs = ActionCodecs()
    codecs.register(ReplayBenchAction.self, as: "bench")
    return replayScenario(
        sizes,
        id: "R1",
        title: "replay \(sizes.replayActions) Codable actions from a file, structural hash verified",
        codecs: codecs,
        hash: .structural,
        comparesWithFoundation: true
    )
}

/// R2: the fast path. The same session with a hand-written codec (a string per action) and a
/// hash of three fields.
func replayHandWritten(_ sizes: Sizes) -> Report {
    var codecs = ActionCodecs()
    codecs.register(
        ReplayBenchAction.self,
        as: "bench",
        encode: { $0.scriptLine },
        decode: { try ReplayBenchAction(scriptLine: $0) }
    )
    return replayScenario(
        sizes,
        id: "R2",
        title: "replay \(sizes.replayActions) actions from a file, hand-written codec, field hash verified",
        codecs: codecs,
        hash: fieldsHash,
        comparesWithFoundation: false
    )
}

/// Records, then replays, and reports actions per second against a floor that dispatches the
/// same actions from an array, with the resident-memory growth of a replay.
private func replayScenario(
    _ sizes: Sizes,
    id: String,
    title: String,
    codecs: ActionCodecs,
    hash: StateHash<ReplayBenchState>,
    comparesWithFoundation: Bool
) -> Report {
    let actions = sizes.replayActions
    let path = FileManager.default.temporaryDirectory
        .appendingPathComponent("consumer-bench-\(id)-\(ProcessInfo.processInfo.processIdentifier).jsonl").path
    defer { try? FileManager.default.removeItem(atPath: path) }
    var report = Report(
        scenario: id, title: title, nsPerOp: .nan, minNsPerOp: .nan, target: "≥ 1,000,000 actions/s; memory bounded")

    // Record once, timed.
    let recordStart = DispatchTime.now().uptimeNanoseconds
    let recordedState: ReplayBenchState
    do {
        let recorder = try SessionRecorder<ReplayBenchState>(
            to: .file(atPath: path), codecs: codecs, hash: hash, snapshotInterval: 100_000
        )
        let store = Store(
            initialState: ReplayBenchState(), reducer: replayBenchReducer, middleware: [recorder.middleware])
        for index in 0..<actions {
            store.dispatch(ReplayBenchAction.session(index))
        }
        try recorder.close()
        recordedState = store.state
    } catch {
        report.failure = "recording failed: \(error)"
        return report
    }
    let recordNs = Double(DispatchTime.now().uptimeNanoseconds - recordStart) / Double(actions)
    let fileBytes = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0

    var failure: String?
    let sessionActions = (0..<actions).map(ReplayBenchAction.session)
    let timings = measure(
        repetitions: sizes.replayRepetitions,
        [
            Variant(operations: actions) {
                do {
                    let reader = try RecordingReader<ReplayBenchState>(
                        contentsOfFile: path, codecs: codecs, hash: hash.name == "structural64" ? nil : hash
                    )
                    let store = Store(initialState: reader.initialState, reducer: replayBenchReducer)
                    try reader.replay(into: store)
                    if store.state != recordedState { failure = "the replay ended in another state than the recording" }
                } catch {
                    failure = "replay failed: \(error)"
                }
            },
            Variant(operations: actions) {
                let store = Store(initialState: ReplayBenchState(), reducer: replayBenchReducer)
                for action in sessionActions {
                    store.dispatch(action)
                }
                if store.state != recordedState { failure = "the floor ended in another state than the recording" }
            },
        ]
    )

    // Memory: one more replay in ten slices, sampling resident memory after each.
    var peakGrowth = 0
    var peak = 0
    if let before = residentBytes() {
        do {
            let reader = try RecordingReader<ReplayBenchState>(contentsOfFile: path, codecs: codecs, hash: hash)
            let store = Store(initialState: reader.initialState, reducer: replayBenchReducer)
            for slice in 1...10 {
                try reader.replay(into: store, through: actions * slice / 10)
                let resident = residentBytes() ?? before
                peak = max(peak, resident)
                peakGrowth = max(peakGrowth, resident - before)
            }
        } catch {
            failure = "replay failed: \(error)"
        }
    }

    report = Report(
        scenario: id,
        title: title,
        nsPerOp: timings[0].median,
        minNsPerOp: timings[0].min,
        ratios: [("vs_dispatch_floor", timings[0].median / timings[1].median)],
        figures: [
            ("actions_per_s", 1e9 / timings[0].median),
            ("dispatch_floor_ns", timings[1].median),
            ("record_ns_per_action", recordNs),
            ("file_mb", Double(fileBytes) / 1e6),
            ("replay_rss_growth_mb", Double(peakGrowth) / 1e6),
            ("replay_peak_rss_mb", Double(peak) / 1e6),
        ],
        target: "≥ 1,000,000 actions/s; memory bounded"
    )
    if comparesWithFoundation {
        report.figures.append(
            ("foundation_decode_ns_per_line", foundationDecodeNs(path: path, lines: min(actions, 50_000))))
    }
    report.failure = failure
    report.goalMet = 1e9 / timings[0].median >= 1_000_000
    return report
}

/// Foundation's `JSONDecoder` on the first `lines` action lines of the recording: what reading
/// one line (envelope and action) would cost with it, for comparison.
private func foundationDecodeNs(path: String, lines: Int) -> Double {
    guard let data = FileManager.default.contents(atPath: path) else { return .nan }
    let prefix = Array("{\"index\"".utf8)
    let sample = data.split(separator: UInt8(ascii: "\n")).lazy
        .filter { $0.starts(with: prefix) }
        .prefix(lines)
        .map { Data($0) }
    let lines = Array(sample)
    let decoder = JSONDecoder()
    var decoded = 0
    let start = DispatchTime.now().uptimeNanoseconds
    for line in lines {
        if let value = try? decoder.decode(FoundationLine.self, from: line) {
            decoded &+= 1
            _ = value
        }
    }
    let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start)
    return decoded == lines.count && decoded > 0 ? elapsed / Double(lines.count) : .nan
}
