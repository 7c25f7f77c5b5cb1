import Foundation
import ReduxConsumer

/// The state of A1: one array that every action appends to.
struct GrowingState: Sendable {
    var items: [Int]
}

/// A1's action: append one element.
struct AppendItem: Action {
    let value: Int
}

/// A1: a reducer that appends to an array in the state, at lengths 1,000 → 100,000, against the
/// same appends to a plain array (the floor). A store publishes a copy of its state after each
/// action, so that `state` never waits for a reducer; the copy shares the array's buffer, so the
/// next append finds the buffer shared and copies it first. The figure is the growth of one
/// dispatch's cost with the array's length: what an append-only state pays.
func appendingReducer(_ sizes: Sizes) -> Report {
    let lengths = sizes.diffSizes.last == 100_000 ? [1_000, 10_000, 100_000] : [1_000, 10_000]
    let appends = 100
    let reducer = Reducer<GrowingState> { (state, action: AppendItem) in state.items.append(action.value) }
    var figures: [(key: String, value: Double)] = []
    var perLength: [Double] = []
    var failure: String?
    for length in lengths {
        let store = Store(initialState: GrowingState(items: Array(0..<length)), reducer: reducer)
        var floor = Array(0..<length)
        let timings = measure(
            repetitions: sizes.repetitions,
            [
                Variant(operations: appends) {
                    for value in 0..<appends { store.dispatch(AppendItem(value: value)) }
                },
                Variant(operations: appends) {
                    for value in 0..<appends { floor.append(value) }
                },
            ]
        )
        // One warm-up round and `repetitions` timed ones.
        if store.state.items.count != length + appends * (sizes.repetitions + 1) {
            failure = "expected \(length + appends * (sizes.repetitions + 1)) elements, saw \(store.state.items.count)"
        }
        perLength.append(timings[0].median)
        figures.append(("ns_at_\(length / 1_000)k", timings[0].median))
        figures.append(("floor_ns_at_\(length / 1_000)k", timings[1].median))
    }
    // Per 10× length, averaged geometrically over the whole range (the allocator makes single
    // steps uneven: large copies come from fresh pages).
    let growth = pow(perLength[perLength.count - 1] / perLength[0], 1 / Double(perLength.count - 1))
    let report = Report(
        scenario: "A1",
        title: "reducer appending to an array of \(lengths.last! / 1_000)k",
        nsPerOp: perLength[perLength.count - 1],
        minNsPerOp: .nan,
        ratios: [("growth_per_10x_length", growth)],
        figures: figures,
        target: "flat: ≤ 1.5× per 10× length",
        failure: failure
    )
    return report.meeting(growth <= 1.5)
}
