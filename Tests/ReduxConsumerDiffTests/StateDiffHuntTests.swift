import ReduxConsumer
import ReduxConsumerDiff
import ReduxConsumerTestSupport
import Testing

/// StateDiff of unusual values: the result depends only on the values, never on how a dictionary
/// or a set happens to be laid out in memory.
struct StateDiffHuntTests {
    /// Keys longer than a rendering (about 2,000 characters) that differ only at their end render
    /// alike; equal dictionaries must still give the same diff whatever their hashing order.
    @Test func equalDictionariesWhoseKeysRenderAlikeGiveTheSameDiff() {
        let stem = String(repeating: "k", count: 2_100)
        // The same entries in dictionaries of different capacities: different hashing orders.
        let dictionaries = [0, 64, 512, 4_096, 32_768].map { capacity in
            var dictionary = [String: Int](minimumCapacity: capacity)
            for index in 0..<8 {
                dictionary[stem + "\(index)"] = index
            }
            return dictionary
        }
        let first = StateDiff(from: [String: Int](), to: dictionaries[0])
        for dictionary in dictionaries.dropFirst() {
            #expect(dictionary == dictionaries[0])
            let diff = StateDiff(from: [String: Int](), to: dictionary)
            #expect(diff == first, "\(first.changes.map(\.newValue)) ≠ \(diff.changes.map(\.newValue))")
            let back = StateDiff(from: dictionary, to: [:])
            #expect(back.changes.map(\.oldValue) == first.changes.map(\.newValue))
        }
    }

    @Test func equalSetsWhoseMembersRenderAlikeGiveTheSameDiff() {
        let stem = String(repeating: "m", count: 2_100)
        var small: Set<[String]> = []
        var large: Set<[String]> = []
        large.reserveCapacity(4_096)
        for index in 0..<8 {
            small.insert([stem, "\(index)"])
            large.insert([stem, "\(index)"])
        }
        #expect(small == large)
        let fromSmall = StateDiff(from: Set<[String]>(), to: small)
        let fromLarge = StateDiff(from: Set<[String]>(), to: large)
        #expect(fromSmall == fromLarge)
    }

    // MARK: - Seeded fuzz: the diff depends on the values only

    private struct Item: Hashable {
        var name: String
        var tags: Set<String>
        var score: Double
    }

    private struct Catalog {
        var items: [String: Item]
        var index: [Int: [String]]
        var flags: Set<String>
        var pinned: Item??
    }

    private static let fuzzSeed: UInt64 = 0x5D1F_F0DE_2026_1126

    /// Random catalogs, each built twice with the same contents in another insertion order and
    /// capacity (so another hashing order), diffed against a random edit of themselves: the two
    /// diffs must be equal. Keys and members are sometimes longer than a rendering, so several
    /// render alike.
    @Test func equalValuesBuiltDifferentlyGiveEqualDiffs() {
        var random = SplitMix64(seed: Self.fuzzSeed)
        let stem = String(repeating: "s", count: 2_050)
        func word(_ random: inout SplitMix64) -> String {
            let number = random.next() % 12
            return random.next() % 3 == 0 ? stem + "\(number)" : "w\(number)"
        }
        func item(_ random: inout SplitMix64) -> Item {
            Item(
                name: word(&random),
                tags: Set((0..<(random.next() % 4)).map { _ in word(&random) }),
                score: random.next() % 5 == 0 ? .nan : Double(random.next() % 100)
            )
        }
        func entries(_ random: inout SplitMix64) -> [(String, Item)] {
            (0..<(random.next() % 10)).map { _ in (word(&random), item(&random)) }
        }
        func catalog(
            _ items: [(String, Item)], _ index: [(Int, [String])], _ flags: [String], _ pinned: Item??, capacity: Int
        )
            -> Catalog
        {
            var byName = [String: Item](minimumCapacity: capacity)
            for (key, value) in items { byName[key] = value }
            var byNumber = [Int: [String]](minimumCapacity: capacity)
            for (key, value) in index { byNumber[key] = value }
            var flagSet = Set<String>(minimumCapacity: capacity)
            for flag in flags { flagSet.insert(flag) }
            return Catalog(items: byName, index: byNumber, flags: flagSet, pinned: pinned)
        }
        for round in 0..<100 {
            var parts: [(items: [(String, Item)], index: [(Int, [String])], flags: [String], pinned: Item??)] = []
            for _ in 0..<2 {
                let items = entries(&random)
                let index = (0..<(random.next() % 6)).map { _ in
                    (Int(random.next() % 8), (0..<(random.next() % 3)).map { _ in word(&random) })
                }
                let flags = (0..<(random.next() % 6)).map { _ in word(&random) }
                let pinned: Item?? =
                    switch random.next() % 3 {
                    case 0: .none
                    case 1: .some(.none)
                    default: .some(item(&random))
                    }
                parts.append((items, index, flags, pinned))
            }
            // The edited version keeps some of the old entries, so that entries change as well.
            parts[1].items += parts[0].items.filter { _ in random.next() % 2 == 0 }
            let (old, new) = (parts[0], parts[1])
            // Later duplicates win: reversing the order keeps the same contents only if the first
            // build applies them in reverse too, so dedupe first.
            func unique<Value>(_ pairs: [(String, Value)]) -> [(String, Value)] {
                var seen = Set<String>()
                return pairs.reversed().filter { seen.insert($0.0).inserted }
            }
            func uniqueNumbers(_ pairs: [(Int, [String])]) -> [(Int, [String])] {
                var seen = Set<Int>()
                return pairs.reversed().filter { seen.insert($0.0).inserted }
            }
            let diffs = [(0, false), (256, true)].map { capacity, reverses in
                func order<T>(_ values: [T]) -> [T] { reverses ? values.reversed() : values }
                let before = catalog(
                    order(unique(old.items)), order(uniqueNumbers(old.index)), order(old.flags), old.pinned,
                    capacity: capacity)
                let after = catalog(
                    order(unique(new.items)), order(uniqueNumbers(new.index)), order(new.flags), new.pinned,
                    capacity: capacity)
                return StateDiff(from: before, to: after)
            }
            #expect(
                diffs[0] == diffs[1],
                """
                seed 0x\(String(Self.fuzzSeed, radix: 16)), round \(round): equal values, different diffs
                \(diffs[0].rendered(DiffFormat(maxValueLength: 40)))
                ---
                \(diffs[1].rendered(DiffFormat(maxValueLength: 40)))
                """)
        }
    }

    // MARK: - Cycles through custom mirrors

    /// A class that describes itself as a struct, as a `customMirror` often does. It stops
    /// reflecting itself after `budget` mirrors, so that a diff that follows its cycle forever
    /// still ends (and the test can count).
    fileprivate final class Node: CustomReflectable, @unchecked Sendable {
        // Unchecked: the test uses its nodes on one thread.
        var value: Int
        var next: Node?
        let mirrors: Counter

        init(_ value: Int, mirrors: Counter) {
            self.value = value
            self.mirrors = mirrors
        }

        var customMirror: Mirror {
            mirrors.count += 1
            guard mirrors.count <= 2_000 else { return Mirror(self, children: [:], displayStyle: .struct) }
            return Mirror(self, children: ["value": value, "next": next as Any], displayStyle: .struct)
        }
    }

    fileprivate final class Counter: @unchecked Sendable {
        // Unchecked: the test uses it on one thread.
        var count = 0
    }

    /// "Reference cycles are followed once", whatever the display style an object's mirror gives.
    @Test func aCycleThroughObjectsWithCustomMirrorsIsFollowedOnce() {
        let mirrors = Counter()
        let a1 = Node(1, mirrors: mirrors)
        let b1 = Node(2, mirrors: mirrors)
        a1.next = b1
        b1.next = a1
        let a2 = Node(1, mirrors: mirrors)
        let b2 = Node(3, mirrors: mirrors)
        a2.next = b2
        b2.next = a2
        let diff = StateDiff(from: a1, to: a2)
        #expect(mirrors.count < 100, "\(mirrors.count) mirrors made")
        #expect(diff.changes.map(\.path.description) == ["next.value"], "\(diff.changes.count) changes")
        mirrors.count = 0
        let added = StateDiff(from: Node?.none, to: a2)
        #expect(mirrors.count < 100, "\(mirrors.count) mirrors made rendering the cycle")
        #expect(added.rendered().contains("Node(…)"), "\(added.rendered())")
        for node in [a1, b1, a2, b2] { node.next = nil }
    }

    // MARK: - One line per change

    fileprivate struct Labeled: CustomReflectable {
        var value: Int
        var customMirror: Mirror {
            Mirror(self, children: ["count\n  ~ injected: 0 → 1": value], displayStyle: .struct)
        }
    }

    /// A change is one line: a field name from a custom mirror cannot start another line that
    /// passes for a change.
    @Test func aFieldNameWithALineBreakStaysOnItsChangesLine() {
        let diff = StateDiff(from: Labeled(value: 1), to: Labeled(value: 2))
        #expect(diff.changes.count == 1)
        let rendered = diff.rendered()
        #expect(!rendered.contains("\n"), "\(rendered)")
        let entry = ActionLogger<Labeled>.Entry(action: NamedAction(), diff: diff)
        #expect(entry.description.split(separator: "\n").count == 2, "\(entry.description)")
    }

    fileprivate struct NamedAction: Action {}
}
