import ConsumerDemoKit
import ReduxConsumerDiff

/// A list of strings the diff family can build and edit: a plain array, or the demo's
/// `ChunkedList`, whose versions share their chunks.
protocol EditableList: MutableCollection where Element == String, Index == Int {
    init(_ elements: [String])
    mutating func append(_ element: String)
}

extension Array: EditableList where Element == String {}
extension ChunkedList: EditableList where Element == String {}

/// The list type a diff family scenario diffs.
enum DiffedList: String {
    case array = "[String]"
    case chunkedList = "ChunkedList"
}

/// The edit between the two versions a diff family scenario compares.
enum ListEdit: String {
    case oneAppend = "one append"
    case oneChange = "one change"
    case allChanged = "all changed"
}

/// D1–D6: `StateDiff` of two versions of a list of 1,000, 10,000 and 100,000 strings, the new one
/// made from the old one (so they share what the edit did not touch, as in a store). Reports the
/// median ns per diff at the largest size, and every size as a figure; checks each diff's changes.
func diffFamily(_ sizes: Sizes, scenario: String, list: DiffedList, edit: ListEdit) -> Report {
    switch list {
    case .array: diffFamily(sizes, scenario: scenario, listName: list.rawValue, [String].self, edit: edit)
    case .chunkedList:
        diffFamily(sizes, scenario: scenario, listName: list.rawValue, ChunkedList<String>.self, edit: edit)
    }
}

private func diffFamily<List: EditableList>(
    _ sizes: Sizes,
    scenario: String,
    listName: String,
    _ list: List.Type,
    edit: ListEdit
) -> Report {
    var figures: [(key: String, value: Double)] = []
    var largest = Timing()
    var failure: String?
    for size in sizes.diffSizes {
        let old = List((0..<size).map { "work \($0)" })
        var new = old
        let expected: (count: Int, first: String)
        switch edit {
        case .oneAppend:
            new.append("work \(size)")
            expected = (1, #"+ [\#(size)]: "work \#(size)""#)
        case .oneChange:
            new[size / 2] = "changed"
            expected = (1, #"~ [\#(size / 2)]: "work \#(size / 2)" → "changed""#)
        case .allChanged:
            new = List((0..<size).map { "task \($0)" })
            expected = (size, #"~ [0]: "work 0" → "task 0""#)
        }
        let diffs = edit == .allChanged ? max(1, sizes.diffElementsPerSample / size) : sizes.diffsPerSample
        var diff = StateDiff(from: old, to: old)
        let timing = measure(
            repetitions: sizes.repetitions,
            [
                Variant(operations: diffs) {
                    for _ in 0..<diffs {
                        diff = StateDiff(from: old, to: new)
                    }
                }
            ]
        )[0]
        if diff.changes.count != expected.count || diff.changes.first?.description != expected.first {
            failure =
                "\(size) elements: expected \(expected.count) changes starting \(expected.first), got "
                + "\(diff.changes.count) starting \(diff.changes.first?.description ?? "nothing")"
        }
        figures.append(("ns_at_\(size / 1_000)k", timing.median))
        if edit == .allChanged {
            figures.append(("ns_per_element_at_\(size / 1_000)k", timing.median / Double(size)))
        }
        largest = timing
    }
    let largestSize = sizes.diffSizes.last ?? 0
    let target: String
    switch edit {
    case .oneAppend: target = "100k: ≤ 50,000 ns per diff"
    case .oneChange: target = "cost of the change, not of the list"
    case .allChanged: target = "linear: flat ns per element"
    }
    return Report(
        scenario: scenario,
        title: "diff \(listName) of \(largestSize / 1_000)k, \(edit.rawValue)",
        nsPerOp: largest.median,
        minNsPerOp: largest.min,
        figures: figures,
        target: target,
        failure: failure
    ).meeting(edit == .oneAppend && largestSize == 100_000 ? largest.median <= 50_000 : nil)
}
