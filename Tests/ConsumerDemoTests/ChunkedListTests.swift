import ConsumerDemoKit
import Foundation
import ReduxConsumerDiff
import ReduxConsumerTestSupport
import Testing

struct ChunkedListTests {
    /// Whether two arrays use one buffer.
    static func shareStorage(_ lhs: [Int], _ rhs: [Int]) -> Bool {
        lhs.withUnsafeBufferPointer { lhs in rhs.withUnsafeBufferPointer { lhs.baseAddress == $0.baseAddress } }
    }

    /// Every chunk but the last is full, and none is empty.
    static func isWellChunked<Element>(_ list: ChunkedList<Element>) -> Bool {
        let capacity = ChunkedList<Element>.chunkCapacity
        return list.chunks.dropLast().allSatisfy { $0.count == capacity }
            && list.chunks.last.map { !$0.isEmpty && $0.count <= capacity } ?? true
            && list.chunks.reduce(0) { $0 + $1.count } == list.count
    }

    @Test func appendedElementsFillChunksInOrder() {
        let capacity = ChunkedList<Int>.chunkCapacity
        let list = ChunkedList(0..<(2 * capacity + 3))
        #expect(Array(list) == Array(0..<(2 * capacity + 3)))
        #expect(list.chunks.map(\.count) == [capacity, capacity, 3])
        #expect(list[capacity] == capacity)
        #expect(ChunkedList<Int>().isEmpty)
        #expect(([] as ChunkedList<Int>).chunks.isEmpty)
    }

    @Test(arguments: 0..<40)
    func editsMatchAnArray(seed: Int) {
        var generator = SplitMix64(seed: UInt64(seed))
        var list = ChunkedList(0..<Int.random(in: 0...3_000, using: &generator))
        var array = Array(list)
        for step in 0..<60 {
            switch Int.random(in: 0..<3, using: &generator) {
            case 0:
                list.append(-step)
                array.append(-step)
            case 1 where !array.isEmpty:
                let position = Int.random(in: 0..<array.count, using: &generator)
                #expect(list.remove(at: position) == array.remove(at: position))
            default:
                if !array.isEmpty {
                    let position = Int.random(in: 0..<array.count, using: &generator)
                    list[position] = step
                    array[position] = step
                }
            }
        }
        #expect(Array(list) == array)
        #expect(list.count == array.count)
        #expect(Self.isWellChunked(list))
    }

    @Test func anAppendToACopySharesEveryChunkButTheLast() {
        let capacity = ChunkedList<Int>.chunkCapacity
        let original = ChunkedList(0..<(3 * capacity + 5))
        var copy = original
        copy.append(-1)
        #expect(zip(original.chunks, copy.chunks).dropLast().allSatisfy { Self.shareStorage($0, $1) })
        #expect(!Self.shareStorage(original.chunks[3], copy.chunks[3]))
        #expect(Array(original) == Array(0..<(3 * capacity + 5)))
    }

    @Test func equalityComparesElementsWhateverTheHistory() {
        var appended = ChunkedList(0..<2_000)
        appended.append(2_000)
        var removed = ChunkedList(0..<2_002)
        removed.remove(at: 2_001)
        #expect(appended == removed)
        removed[1_500] = 0
        #expect(appended != removed)
        #expect(ChunkedList([1]) != ChunkedList([1, 2]))
    }

    @Test func encodesAsAPlainArray() throws {
        let list = ChunkedList(0..<1_500)
        let data = try JSONEncoder().encode(list)
        #expect(data == (try JSONEncoder().encode(Array(0..<1_500))))
        #expect(try JSONDecoder().decode(ChunkedList<Int>.self, from: data) == list)
    }

    @Test func diffsAndRendersLikeAnArray() {
        let old = ChunkedList((0..<3_000).map { "work \($0)" })
        var new = old
        new.append("work 3000")
        new.remove(at: 1_030)
        #expect(
            StateDiff(from: old, to: new).rendered() == """
                - [1030]: "work 1030"
                + [2999]: "work 3000"
                """
        )
        #expect(StateDiff(from: ChunkedList<String>?.none, to: ["a", "b"]).rendered() == #"+ (root): ["a", "b"]"#)
    }
}
