import Foundation
import ReduxConsumer
import ReduxConsumerDiff
import ReduxConsumerTestSupport
import Testing

// "Rendering a large value reads only the elements that fit in its rendering" (StateDiff's
// documentation): a large set or dictionary too, not every member sorted first. Its rendering
// stays the same from run to run, and a small one renders as before.

struct Hunt10LargeSetRenderingTests {
    /// Counts how many times members were rendered.
    final class Renderings: @unchecked Sendable {
        // Unchecked: `count` is touched only under `lock`.
        private let lock = NSLock()
        private var value = 0

        func add() {
            lock.lock()
            value += 1
            lock.unlock()
        }

        var count: Int {
            lock.lock()
            defer { lock.unlock() }
            return value
        }
    }

    /// A member rendered through its description, which counts each rendering; ordered and
    /// hashed by `id` alone.
    struct Tag: Hashable, Comparable, CustomStringConvertible, CustomReflectable {
        var id: Int
        var renderings: Renderings

        var description: String {
            renderings.add()
            return "#\(id)"
        }

        var customMirror: Mirror { Mirror(self, children: [:]) }

        static func == (left: Tag, right: Tag) -> Bool { left.id == right.id }
        static func < (left: Tag, right: Tag) -> Bool { left.id < right.id }
        func hash(into hasher: inout Hasher) { hasher.combine(id) }
    }

    struct Tagged {
        var tags: Set<Tag>?
        var scores: [Tag: Int]?
    }

    @Test func aLargeSetRendersOnlyTheMembersThatFit() {
        let renderings = Renderings()
        let tags = Set((0..<100_000).map { Tag(id: $0, renderings: renderings) })
        let diff = StateDiff(from: Tagged(), to: Tagged(tags: tags))
        #expect(diff.changes.count == 1)
        #expect(renderings.count <= 2_000, "rendered \(renderings.count) members of 100,000")
    }

    @Test func aLargeDictionaryRendersOnlyTheKeysThatFit() {
        let renderings = Renderings()
        let scores = Dictionary(uniqueKeysWithValues: (0..<100_000).map { (Tag(id: $0, renderings: renderings), $0) })
        let diff = StateDiff(from: Tagged(), to: Tagged(scores: scores))
        #expect(diff.changes.count == 1)
        #expect(renderings.count <= 2_000, "rendered \(renderings.count) keys of 100,000")
    }

    /// Two sets with the same members, built in other orders and with other capacities (so
    /// iterated in other orders), render alike: the smallest members first, then how many more.
    @Test func aLargeSetRendersTheSameWhateverItsOrderWithACountOfTheRest() throws {
        let forward = Set(0..<200_000)
        var backward = Set<Int>(minimumCapacity: 1_000_000)
        for member in (0..<200_000).reversed() {
            backward.insert(member)
        }
        let first = try #require(StateDiff(from: Optional<Set<Int>>.none, to: forward).changes.first?.newValue)
        let second = try #require(StateDiff(from: Optional<Set<Int>>.none, to: backward).changes.first?.newValue)
        #expect(first == second)
        #expect(first.hasPrefix("Set([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, "), "\(first.prefix(80))")
        #expect(first.hasSuffix(" more])"), "\(first.suffix(80))")
        #expect(first.utf8.count <= 2_003)
        // The count says how many are not shown.
        let shown = first.split(separator: ", ").count - 1
        #expect(first.hasSuffix("…\(200_000 - shown) more])"), "\(first.suffix(40)), \(shown) shown")
    }

    @Test func aLargeDictionaryRendersTheSameWhateverItsOrderWithACountOfTheRest() throws {
        let forward = Dictionary(uniqueKeysWithValues: (0..<50_000).map { ("key\($0)", $0) })
        var backward = [String: Int](minimumCapacity: 300_000)
        for index in (0..<50_000).reversed() {
            backward["key\(index)"] = index
        }
        let first = try #require(StateDiff(from: [String: Int]?.none, to: forward).changes.first?.newValue)
        let second = try #require(StateDiff(from: [String: Int]?.none, to: backward).changes.first?.newValue)
        #expect(first == second)
        #expect(first.hasPrefix(#"["key0": 0, "key1": 1, "key10": 10, "key100": 100, "#), "\(first.prefix(80))")
        #expect(first.hasSuffix(" more]"), "\(first.suffix(80))")
    }

    /// NaNs are in no order: a large set holding them still renders the same from run to run.
    @Test func aLargeSetWithNaNsRendersTheSameWhateverItsOrder() {
        let members = (0..<3_000).map(Double.init) + [.nan, .nan, .nan]
        var backward = Set<Double>(minimumCapacity: 100_000)
        for member in members.reversed() {
            backward.insert(member)
        }
        let first = StateDiff(from: Set<Double>?.none, to: Set(members)).changes.first?.newValue
        let second = StateDiff(from: Set<Double>?.none, to: backward).changes.first?.newValue
        #expect(first == second)
    }

    /// Sets and dictionaries that may fit render whole and sorted by rendering, as before,
    /// even when their members are comparable in another order.
    @Test func smallSetsAndDictionariesRenderAsBefore() {
        #expect(
            StateDiff(from: Optional<Set<Int>>.none, to: Set([10, 9, 100])).rendered() == "+ (root): Set([10, 100, 9])")
        #expect(
            StateDiff(from: [Int: String]?.none, to: [10: "a", 9: "b"]).rendered() == #"+ (root): [10: "a", 9: "b"]"#)
        let many = Set(0..<900)
        let rendered = StateDiff(from: Optional<Set<Int>>.none, to: many).changes.first?.newValue ?? ""
        #expect(rendered.hasPrefix("Set([0, 1, 10, 100, 101, "), "\(rendered.prefix(60))")
        #expect(rendered.hasSuffix("…"))
    }
}
