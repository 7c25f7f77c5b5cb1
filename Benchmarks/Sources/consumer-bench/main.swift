#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

let options: Options
switch Options.parse(Array(CommandLine.arguments.dropFirst())) {
case .run(let parsed):
    options = parsed
case .help:
    print(Options.usage)
    exit(0)
case .invalid(let message):
    printError("consumer-bench: \(message)\n\n\(Options.usage)")
    exit(2)
}

let sizes = options.isQuick ? Sizes.quick : Sizes.full
var reports: [Report] = []

/// Writes `message` and a newline to standard error.
func printError(_ message: String) {
    var line = message + "\n"
    line.withUTF8 { bytes in _ = write(2, bytes.baseAddress, bytes.count) }
}

/// Runs a scenario if the filter lets it through, and prints its line as soon as it is known.
@MainActor
func run(_ id: String, _ title: String, _ scenario: () -> Report) {
    guard options.includes(id, title: title) else { return }
    let report = scenario()
    reports.append(report)
    if options.isJSON { print(report.jsonLine) }
}

var selectiveNsPerOp: Double?
run("S1", "dispatch, no subscribers") { dispatchWithoutSubscribers(sizes) }
run("S2", "fan-out") { fanOut(sizes) }
run("S3", "selective key paths") {
    let (report, nsPerOp) = selectiveKeyPaths(sizes)
    selectiveNsPerOp = nsPerOp
    return report
}
run("S4", "selective closures") { selectiveClosures(sizes) }
run("S5", "large state") { largeState(sizes, selectiveNsPerOp: selectiveNsPerOp) }
run("S6", "churn") { churn(sizes) }
run("S7", "concurrent") { concurrentDispatch(sizes) }
run("L1", "members removed one by one") { removalOneByOne(sizes) }
run("L2", "consumers on one key path cancelled oldest first") { sharedKeyPathUnsubscribeOldestFirst(sizes) }
run("L3", "members on distinct derived values") { distinctDerivedMembers(sizes) }
run("A1", "reducer appending to a growing array") { appendingReducer(sizes) }
run("M1", "memory per consumer") {
    memoryPerConsumer(sizes, scenario: "M1", title: "memory, \(sizes.memoryConsumers) consumers", state: BenchState())
}
run("M2", "memory per consumer, large state") {
    var state = BenchState()
    state.samples = Array(0..<sizes.s5Samples)
    return memoryPerConsumer(sizes, scenario: "M2", title: "memory, large state", state: state)
}
run("M3", "memory per key-path consumer, token kept") {
    memoryPerConsumer(
        sizes, scenario: "M3", title: "memory per key-path consumer, token kept", state: BenchState(),
        keepsTokens: true)
}
run("M4", "memory kept by a long-lived bag") { memoryKeptByALongLivedBag(sizes) }
run("R1", "replay, Codable actions") { replayCodable(sizes) }
run("R2", "replay, hand-written codec") { replayHandWritten(sizes) }
run("D1", "diff [String], one append") { diffFamily(sizes, scenario: "D1", list: .array, edit: .oneAppend) }
run("D2", "diff [String], one change") { diffFamily(sizes, scenario: "D2", list: .array, edit: .oneChange) }
run("D3", "diff [String], all changed") { diffFamily(sizes, scenario: "D3", list: .array, edit: .allChanged) }
run("D4", "diff ChunkedList, one append") { diffFamily(sizes, scenario: "D4", list: .chunkedList, edit: .oneAppend) }
run("D5", "diff ChunkedList, one change") { diffFamily(sizes, scenario: "D5", list: .chunkedList, edit: .oneChange) }
run("D6", "diff ChunkedList, all changed") { diffFamily(sizes, scenario: "D6", list: .chunkedList, edit: .allChanged) }
let scalingSizes = options.isQuick ? ScalingSizes.quick : ScalingSizes.full
run("N1", "scaling, selectors on distinct slots", rows: { scalingFamily(scalingSizes) })
run("N2", "scaling, consumers on one key path", rows: { oneKeyPathFamily(scalingSizes) })
run("N3", "scaling, many groups fire at once", rows: { manyGroupsFire(scalingSizes) })
run("N4", "scaling reference: the machine's growth", rows: { cacheReference(scalingSizes) })
run("P1", "pages watching one global key path", rows: { pagesWatchingOneKeyPath(scalingSizes) })
run("P2", "idle pages: P2 global dispatch, P3 memory", rows: { idlePages(scalingSizes) })
run("P4", "pages coming and going on one global key path") { pagesComingAndGoing(scalingSizes) }
run("S8", "await send, one task") { asyncSend(AsyncSizes(quick: options.isQuick)) }
run("S9", "changes(of:) stream", rows: { changeStream(AsyncSizes(quick: options.isQuick)) })
run("S10", "concurrent await send") { concurrentSend(AsyncSizes(quick: options.isQuick)) }
run("S11", "derived selectors", rows: { derivedSelectors(AsyncSizes(quick: options.isQuick)) })

if reports.isEmpty {
    printError("consumer-bench: no scenario matches --filter \(options.filter ?? "")")
    exit(2)
}
if !options.isJSON {
    print(Table.render(reports))
}
let failures = reports.filter { $0.failure != nil }
exit(failures.isEmpty ? 0 : 1)
