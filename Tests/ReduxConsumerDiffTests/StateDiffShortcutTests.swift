import ReduxConsumer
import ReduxConsumerTestSupport
import Testing

@testable import ReduxConsumerDiff

/// The shortcuts (`==` on equal subtrees, opened arrays trimmed by shared storage, identical bytes
/// and `==`, chunked collections compared chunk by chunk) must not change any diff: each property
/// test compares a diff with the one a differ without shortcuts finds by reflection alone.
extension StateDiffTests {
    /// A ``ChunkedCollection`` with whatever chunks a test gives it, empty ones included.
    struct Pieces<Element>: RandomAccessCollection, ChunkedCollection {
        var chunks: [[Element]]

        var startIndex: Int { 0 }
        var endIndex: Int { chunks.reduce(0) { $0 + $1.count } }

        subscript(position: Int) -> Element {
            var offset = position
            for chunk in chunks {
                if offset < chunk.count {
                    return chunk[offset]
                }
                offset -= chunk.count
            }
            preconditionFailure("position \(position) out of range")
        }
    }

    /// A state with a chunked collection in it, as the demo's `AppState` has.
    struct Shelf {
        var title = "Mine"
        var works: Pieces<String>
    }

    /// The changes found by reflection alone, without any shortcut.
    static func reflectiveChanges<Value>(_ old: Value, _ new: Value) -> [StateDiff.Change] {
        var differ = ReflectiveDiffer(usesShortcuts: false)
        return differ.changes(from: old, to: new)
    }

    /// A few random edits of `elements`: appends, insertions, removals, replacements; sometimes
    /// none, sometimes a rebuilt copy that shares no storage with the original.
    static func edited<Element>(
        _ elements: [Element],
        using generator: inout SplitMix64,
        duplicate: (Element) -> Element = { $0 },
        makeElement: (inout SplitMix64) -> Element
    ) -> [Element] {
        var result = elements
        if Int.random(in: 0..<4, using: &generator) == 0 {
            result = elements.map(duplicate)
        }
        for _ in 0..<Int.random(in: 0...3, using: &generator) {
            switch Int.random(in: 0..<4, using: &generator) {
            case 0:
                result.append(makeElement(&generator))
            case 1:
                result.insert(makeElement(&generator), at: Int.random(in: 0...result.count, using: &generator))
            case 2 where !result.isEmpty:
                result.remove(at: Int.random(in: 0..<result.count, using: &generator))
            default:
                if !result.isEmpty {
                    result[Int.random(in: 0..<result.count, using: &generator)] = makeElement(&generator)
                }
            }
        }
        return result
    }

    static func randomArray<Element>(
        using generator: inout SplitMix64,
        makeElement: (inout SplitMix64) -> Element
    ) -> [Element] {
        (0..<Int.random(in: 0...24, using: &generator)).map { _ in makeElement(&generator) }
    }

    /// Words long enough to live on the heap, from a small set so that lists repeat elements.
    static func word(_ generator: inout SplitMix64) -> String {
        "a word long enough for the heap #\(Int.random(in: 0..<6, using: &generator))"
    }

    /// An equal string in storage of its own, so that its bytes differ from the original's.
    static func copied(_ string: String) -> String {
        String(decoding: Array(string.utf8), as: UTF8.self)
    }

    static func expectSameAsReflective<Element>(
        seed: Int,
        duplicate: (Element) -> Element = { $0 },
        sourceLocation: SourceLocation = #_sourceLocation,
        makeElement: (inout SplitMix64) -> Element
    ) {
        var generator = SplitMix64(seed: UInt64(seed))
        let old = randomArray(using: &generator, makeElement: makeElement)
        let new = edited(old, using: &generator, duplicate: duplicate, makeElement: makeElement)
        #expect(
            StateDiff(from: old, to: new).changes == reflectiveChanges(old, new),
            "seed \(seed)",
            sourceLocation: sourceLocation
        )
    }

    @Test(arguments: 0..<150)
    func arrayShortcutsFindWhatReflectionFinds(seed: Int) {
        Self.expectSameAsReflective(seed: seed) { Int.random(in: 0..<5, using: &$0) }
        Self.expectSameAsReflective(seed: seed, duplicate: Self.copied) { Self.word(&$0) }
        Self.expectSameAsReflective(seed: seed, duplicate: { User(name: Self.copied($0.name), age: $0.age) }) {
            User(name: Self.word(&$0), age: Int.random(in: 0..<3, using: &$0))
        }
        Self.expectSameAsReflective(seed: seed, duplicate: { Note(text: Self.copied($0.text), pinned: $0.pinned) }) {
            Note(text: Self.word(&$0), pinned: Bool.random(using: &$0))
        }
        Self.expectSameAsReflective(seed: seed) { Bool.random(using: &$0) ? Int.random(in: 0..<3, using: &$0) : nil }
        Self.expectSameAsReflective(seed: seed) { generator in
            (0..<Int.random(in: 0...3, using: &generator)).map { _ in Int.random(in: 0..<3, using: &generator) }
        }
    }

    /// Random chunks of `elements`, sizes 0 to 4.
    static func chunked<Element>(_ elements: [Element], using generator: inout SplitMix64) -> [[Element]] {
        var chunks: [[Element]] = []
        var rest = elements[...]
        while !rest.isEmpty || Int.random(in: 0..<4, using: &generator) == 0 {
            let size = Int.random(in: 0...4, using: &generator)
            chunks.append(Array(rest.prefix(size)))
            rest = rest.dropFirst(size)
            if rest.isEmpty && chunks.count > 8 {
                break
            }
        }
        return chunks
    }

    /// A new version of `chunks` that keeps some chunks (their storage shared), edits some, and
    /// re-splits some, so that chunk boundaries sometimes line up and sometimes do not.
    static func editedChunks(_ chunks: [[String]], using generator: inout SplitMix64) -> [[String]] {
        var result: [[String]] = []
        for chunk in chunks {
            switch Int.random(in: 0..<6, using: &generator) {
            case 0, 1, 2:
                result.append(chunk)
            case 3:
                result.append(edited(chunk, using: &generator, makeElement: word))
            case 4:
                result += Self.chunked(chunk, using: &generator)
            default:
                result.append(chunk.map(copied))
            }
        }
        if Bool.random(using: &generator) {
            result.append((0..<Int.random(in: 1...3, using: &generator)).map { _ in word(&generator) })
        }
        return result
    }

    @Test(arguments: 0..<300)
    func chunkedCollectionsFindWhatReflectionFindsOnTheirElements(seed: Int) {
        var generator = SplitMix64(seed: UInt64(seed))
        let oldChunks = Self.chunked(Self.randomArray(using: &generator, makeElement: Self.word), using: &generator)
        let newChunks = Self.editedChunks(oldChunks, using: &generator)
        let old = Shelf(works: Pieces(chunks: oldChunks))
        let new = Shelf(works: Pieces(chunks: newChunks))
        let flatOld = (title: old.title, works: Array(old.works))
        let flatNew = (title: new.title, works: Array(new.works))
        #expect(StateDiff(from: old, to: new).changes == Self.reflectiveChanges(flatOld, flatNew), "seed \(seed)")
    }

    @Test
    func chunkedCollectionIsReportedAndRenderedLikeAnArray() {
        let old = Shelf(works: Pieces(chunks: [["Dune", "Emma"], [], ["Kim"]]))
        var new = old
        new.works.chunks[2].append("Ulysses")
        new.works.chunks.insert(["Beloved"], at: 1)
        #expect(
            StateDiff(from: old, to: new).rendered() == """
                + works[2]: "Beloved"
                + works[4]: "Ulysses"
                """
        )
        #expect(
            StateDiff(from: Shelf?.none, to: new).rendered() == """
                + (root): Shelf(title: "Mine", works: ["Dune", "Emma", "Beloved", "Kim", "Ulysses"])
                """
        )
    }

    @Test
    func oneAppendToALargeChunkedCollectionIsOneChange() {
        let chunks = stride(from: 0, to: 100_000, by: 250).map { start in (start..<(start + 250)).map { "w\($0)" } }
        let old = Pieces(chunks: chunks)
        var new = old
        new.chunks[new.chunks.count - 1].append("w100000")
        var changed = new
        changed.chunks[200][10] = "changed"
        #expect(StateDiff(from: old, to: new).rendered() == #"+ [100000]: "w100000""#)
        #expect(StateDiff(from: new, to: changed).rendered() == #"~ [50010]: "w50010" → "changed""#)
        #expect(StateDiff(from: new, to: new).isEmpty)
    }

    @Test
    func differingMiddleTrimsAcrossChunkBoundariesThatDoNotLineUp() throws {
        let old = ChunkedElements(chunks: [[1, 2], [3, 4, 5]], count: 5)
        let new = ChunkedElements(chunks: [[1], [2, 3], [], [4, 9, 5]], count: 6)
        let middle = try #require(old.differingMiddle(against: new, trimsEnd: true))
        #expect(middle.prefix == 4)
        #expect(middle.old.isEmpty)
        #expect(middle.new.map { $0 as? Int } == [9])
        #expect(old.differingMiddle(against: ChunkedElements(["1"]), trimsEnd: true) == nil)
    }

    @Test
    func equalElementsWithDifferentStorageAreTrimmedByEquality() throws {
        let old = (0..<10).map { "a string stored on the heap, number \($0)" }
        let new = old.map { String(decoding: Array($0.utf8), as: UTF8.self) } + ["one more"]
        let middle = try #require(ChunkedElements(old).differingMiddle(against: ChunkedElements(new), trimsEnd: true))
        #expect(middle.prefix == 10)
        #expect(middle.new.map { $0 as? String } == ["one more"])
    }

    /// Not `Equatable`, and without padding, so that copies have identical bytes.
    struct Tag {
        var text: String
    }

    @Test
    func nonEquatableElementsEqualOnlyByRenderingAreTrimmedAsReflectionTrimsThem() {
        let text = "a tag long enough for the heap"
        let old = [Tag(text: text), Tag(text: "b")]
        let new = [Tag(text: Self.copied(text)), old[1], old[1]]
        // The ends by bytes alone would be [Tag(a)] and [Tag(a'), Tag(b)], and report `+ [1]`.
        #expect(StateDiff(from: old, to: new).rendered() == #"+ [2]: Tag(text: "b")"#)
        #expect(StateDiff(from: old, to: new).changes == Self.reflectiveChanges(old, new))
    }

    @Test
    func elementsWithIdenticalBytesAreUnchangedEvenWhenNotEqualByThemselves() {
        let values = [1.0, .nan, 3.0]
        var new = values
        new.append(4)
        #expect(StateDiff(from: values, to: new).rendered() == "+ [3]: 4.0")
        #expect(StateDiff(from: Double.nan, to: Double.nan).isEmpty)
    }

    @Test
    func renderingALargeArrayReadsOnlyWhatFits() throws {
        let large = Array(0..<1_000_000)
        let rendered = try #require(StateDiff(from: [Int]?.none, to: large).changes.first?.newValue)
        #expect(rendered.hasPrefix("[0, 1, 2, 3, "))
        #expect(rendered.hasSuffix("…"))
        #expect(rendered.utf8.count < 2_010)
    }

    @Test(arguments: 0..<50)
    func identicalByteRunsMatchAnElementByElementComparison(seed: Int) {
        var generator = SplitMix64(seed: UInt64(seed))
        // Up to 20,000 eight-byte elements: runs that span several 64 KB blocks.
        let count = Int.random(in: 0...20_000, using: &generator)
        let old = (0..<count).map { _ in Int.random(in: 0..<3, using: &generator) }
        let differences = Int.random(in: 1...4, using: &generator)
        let new = old.map { Int.random(in: 0..<(count * differences / 4 + 1), using: &generator) == 0 ? $0 + 1 : $0 }
        let length = count == 0 ? 0 : Int.random(in: 0...count, using: &generator)
        let forward = IdenticalBytes.runLength(old, from: 0, new, from: 0, length: length, backward: false)
        #expect(forward == (0..<length).prefix { old[$0] == new[$0] }.count)
        let backward = IdenticalBytes.runLength(
            old, from: count - 1, new, from: count - 1, length: length, backward: true)
        #expect(backward == (0..<length).prefix { old[count - 1 - $0] == new[count - 1 - $0] }.count)
    }
}
