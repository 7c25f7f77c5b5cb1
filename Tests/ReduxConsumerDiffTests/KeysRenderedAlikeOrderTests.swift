import ReduxConsumer
import ReduxConsumerDiff
import Testing

/// Dictionary entries whose keys render alike (keys longer than a rendering that differ only at
/// their end) are ordered by the whole description of their keys, then of their values. Those
/// descriptions are made once per entry that needs them, not at every comparison of the sort;
/// the order is unchanged.
@Suite struct KeysRenderedAlikeOrderTests {
    private static let stem = String(repeating: "k", count: 2_100)

    @Test func entriesWithKeysRenderedAlikeAreOrderedByTheirWholeKeys() {
        let stem = Self.stem
        let capacities = [0, 64, 4_096]
        let diffs = capacities.map { capacity in
            var old = [String: Int](minimumCapacity: capacity)
            var new = [String: Int](minimumCapacity: capacity)
            for (key, value) in [(stem + "3", 3), (stem + "1", 1), ("a", 0), (stem + "2", 2), ("z", 9)] {
                old[key] = value
            }
            for (key, value) in [(stem + "1", 10), (stem + "2", 2), (stem + "4", 4), ("a", 5), ("z", 9)] {
                new[key] = value
            }
            return StateDiff(from: old, to: new)
        }
        let changes = diffs[0].changes
        #expect(changes.map(\.kind) == [.changed, .changed, .removed, .added])
        #expect(changes.map(\.oldValue) == ["0", "1", "3", nil])
        #expect(changes.map(\.newValue) == ["5", "10", nil, "4"])
        for diff in diffs.dropFirst() {
            #expect(diff == diffs[0], "whatever the hashing order")
        }
    }

    @Test func keysRenderedAlikeWithTheSameKeyDescriptionAreOrderedByTheirValues() {
        // Keys equal in description but not by `==` (a type whose description drops a field).
        struct Key: Hashable, CustomStringConvertible, CustomDebugStringConvertible {
            var name: String
            var hidden: Int
            var description: String { name }
            var debugDescription: String { name }
        }
        let key = Self.stem
        let old = [Key(name: key, hidden: 1): 30, Key(name: key, hidden: 2): 10, Key(name: key, hidden: 3): 20]
        let new = [Key(name: key, hidden: 1): 31, Key(name: key, hidden: 2): 11, Key(name: key, hidden: 3): 21]
        let changes = StateDiff(from: old, to: new).changes
        #expect(changes.map(\.oldValue) == ["10", "20", "30"])
        #expect(changes.map(\.newValue) == ["11", "21", "31"])
    }

    @Test func manyEntriesWithKeysRenderedAlikeKeepTheirOrder() {
        let stem = Self.stem
        var old: [String: Int] = [:]
        for index in 0..<200 {
            old[stem + String(index, radix: 36)] = index
        }
        let new = old.mapValues { $0 + 1 }
        let changes = StateDiff(from: old, to: new).changes
        let expected = old.keys.sorted { String(reflecting: $0) < String(reflecting: $1) }.map { "\(old[$0]!)" }
        #expect(changes.map(\.oldValue) == expected)
    }
}
