import ReduxConsumerTestSupport
import Testing

@testable import ReduxConsumerDiff

extension StateDiffTests {
    static func alignment(_ old: [Int], _ new: [Int], budget: Int = SequenceAlignment.defaultBudget)
        -> [SequenceAlignment.Edit]
    {
        SequenceAlignment.edits(oldCount: old.count, newCount: new.count, budget: budget) { oldIndex, newIndex in
            old[oldIndex] == new[newIndex] ? .exact : .different
        }
    }

    static func longestCommonSubsequenceLength(_ old: [Int], _ new: [Int]) -> Int {
        var previous = [Int](repeating: 0, count: new.count + 1)
        for oldElement in old {
            var current = [0]
            for (offset, newElement) in new.enumerated() {
                current.append(
                    oldElement == newElement ? previous[offset] + 1 : max(previous[offset + 1], current[offset]))
            }
            previous = current
        }
        return previous[new.count]
    }

    @Test(arguments: 0..<200)
    func alignmentIsAMinimalEditScript(seed: Int) {
        var generator = SplitMix64(seed: UInt64(seed))
        let old = (0..<Int.random(in: 0...12, using: &generator)).map { _ in Int.random(in: 0...4, using: &generator) }
        let new = (0..<Int.random(in: 0...12, using: &generator)).map { _ in Int.random(in: 0...4, using: &generator) }
        var oldIndices: [Int] = []
        var newIndices: [Int] = []
        var matches = 0
        for edit in Self.alignment(old, new) {
            switch edit {
            case .same(let oldIndex, let newIndex, _):
                #expect(old[oldIndex] == new[newIndex])
                oldIndices.append(oldIndex)
                newIndices.append(newIndex)
                matches += 1
            case .changed(let oldIndex, let newIndex):
                oldIndices.append(oldIndex)
                newIndices.append(newIndex)
            case .removed(let oldIndex):
                oldIndices.append(oldIndex)
            case .inserted(let newIndex):
                newIndices.append(newIndex)
            }
        }
        #expect(oldIndices == Array(old.indices))
        #expect(newIndices == Array(new.indices))
        #expect(matches == Self.longestCommonSubsequenceLength(old, new))
    }

    @Test
    func alignmentOverBudgetComparesIndexByIndex() {
        // Nothing in common: every round of the search is work beyond one walk of the middle.
        let edits = Self.alignment([1, 2, 3, 4], [5, 6, 7, 8], budget: 1)
        #expect(
            edits == [
                .changed(old: 0, new: 0), .changed(old: 1, new: 1), .changed(old: 2, new: 2), .changed(old: 3, new: 3),
            ])
        #expect(Self.alignment([1, 2, 3, 4], [0, 1, 2, 3]).count == 5)
    }

    /// The matching run between two edits is walked within the budget however long it is: an
    /// element removed at the front and one added at the end of a long array are two edits, not
    /// a change at every index (what a budget that counted the run gave beyond its size).
    @Test(arguments: [1, 10, 1_000])
    func twoEditsFarApartAreFoundAsTwoWhateverTheLength(budget: Int) {
        let count = 20_000
        let old = Array(0..<count)
        let new = Array(1..<count) + [count]
        let edits = Self.alignment(old, new, budget: budget)
        #expect(edits.count == count + 1)
        #expect(edits.first == .removed(old: 0))
        #expect(edits.last == .inserted(new: count - 1))
        #expect(edits.filter { if case .same = $0 { return false } else { return true } }.count == 2)
    }

    /// The same through `StateDiff`, with the default budget, on an array longer than it: one
    /// removal and one insertion.
    @Test func aLongArrayWithOneElementRemovedAtTheFrontAndOneAddedAtTheEndDiffsAsTwoChanges() {
        let count = SequenceAlignment.defaultBudget + 50_000
        let diff = StateDiff(from: Array(0..<count), to: Array(1..<count) + [count])
        #expect(diff.changes.map(\.kind) == [.removed, .added])
    }
}
