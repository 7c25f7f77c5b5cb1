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
}
