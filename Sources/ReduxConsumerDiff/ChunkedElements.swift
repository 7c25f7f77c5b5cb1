import ReduxConsumer

/// The elements of an array (one chunk) or of a ``ChunkedCollection``, read as one sequence.
///
/// ``differingMiddle(against:)`` trims the common start and end of two versions from the outside
/// in: a run of chunks that both versions share is skipped with one byte comparison of the chunk
/// references (an array's bytes are a reference to its buffer, so identical bytes mean a shared
/// buffer); elsewhere runs of elements are compared by their bytes (``IdenticalBytes``), and an
/// element whose bytes differ is compared with `==` when its type is `Equatable` (a typed `==`,
/// found once per diff, which the alignment of the middle also uses).
///
/// Chunk sizes are read only where the walk needs them, and the size of a long run of skipped
/// chunks is taken from the total `count` minus the chunks outside it when that is shorter. So one
/// append to a chunked collection reads a handful of chunk sizes, not one per chunk: this code is
/// generic over the element type and not specialized, so every chunk read costs a retain and a
/// metadata lookup.
struct ChunkedElements<Element>: ElementList {
    let chunks: [[Element]]
    let count: Int

    /// - Parameters:
    ///   - chunks: The elements, in order, in any number of arrays of any sizes.
    ///   - count: The total of the chunks' counts.
    init(chunks: [[Element]], count: Int) {
        self.chunks = chunks
        self.count = count
        // A wrong count would send the walk past the end of the chunks.
        assert(count == chunks.reduce(0) { $0 + $1.count }, "a ChunkedCollection's count must equal its chunks' total")
    }

    /// The elements of one array.
    init(_ array: [Element]) {
        self.init(chunks: [array], count: array.count)
    }

    func elements(in range: Range<Int>) -> [Any] {
        precondition(range.lowerBound >= 0 && range.upperBound <= count, "element range out of bounds")
        var sizes = [Int](repeating: -1, count: chunks.count)
        var cursor = ChunkCursor(chunkCount: chunks.count, fromEnd: false)
        var skipped = 0
        while skipped < range.lowerBound, settle(&cursor, &sizes) {
            let step = min(cursor.remaining, range.lowerBound - skipped)
            cursor.skipElements(step)
            skipped += step
        }
        return collect(range.count, from: &cursor, &sizes).map { $0 as Any }
    }

    func differingMiddle(against other: any ElementList, trimsEnd: Bool) -> ListMiddle? {
        guard let other = other as? Self else {
            return nil
        }
        if IdenticalBytes.areIdentical(chunks, other.chunks) {
            // One list of chunks: an unchanged collection costs one comparison.
            return ListMiddle(prefix: count, suffix: 0, old: [], new: [])
        }
        let areEqual = typedEquality(of: Element.self)
        var oldSizes = [Int](repeating: -1, count: chunks.count)
        var newSizes = [Int](repeating: -1, count: other.chunks.count)
        let limit = min(count, other.count)
        var oldCursor = ChunkCursor(chunkCount: chunks.count, fromEnd: false)
        var newCursor = ChunkCursor(chunkCount: other.chunks.count, fromEnd: false)
        let prefix = Self.commonRun(
            self, other, &oldCursor, &newCursor, &oldSizes, &newSizes, limit: limit, areEqual: areEqual)
        var oldBackward = ChunkCursor(chunkCount: chunks.count, fromEnd: true)
        var newBackward = ChunkCursor(chunkCount: other.chunks.count, fromEnd: true)
        let suffix = Self.commonRun(
            self, other, &oldBackward, &newBackward, &oldSizes, &newSizes, limit: trimsEnd ? limit - prefix : 0,
            areEqual: areEqual)
        let old = collect(count - prefix - suffix, from: &oldCursor, &oldSizes)
        let new = other.collect(other.count - prefix - suffix, from: &newCursor, &newSizes)
        return ListMiddle(
            prefix: prefix,
            suffix: suffix,
            old: old.map { $0 as Any },
            new: new.map { $0 as Any },
            areEqual: areEqual.map { areEqual in { areEqual(old[$0], new[$1]) } }
        )
    }

    /// The length of the common run at the start (or the end) of two lists, up to `limit`;
    /// leaves the cursors after it.
    private static func commonRun(
        _ old: Self,
        _ new: Self,
        _ oldCursor: inout ChunkCursor,
        _ newCursor: inout ChunkCursor,
        _ oldSizes: inout [Int],
        _ newSizes: inout [Int],
        limit: Int,
        areEqual: ((Element, Element) -> Bool)?
    ) -> Int {
        let fromEnd = oldCursor.fromEnd
        var matched = 0
        while matched < limit, old.settle(&oldCursor, &oldSizes), new.settle(&newCursor, &newSizes) {
            if oldCursor.isAtChunkStart, newCursor.isAtChunkStart {
                var shared = IdenticalBytes.runLength(
                    old.chunks,
                    from: oldCursor.chunk,
                    new.chunks,
                    from: newCursor.chunk,
                    length: min(oldCursor.chunksLeft, newCursor.chunksLeft),
                    backward: fromEnd
                )
                // Shared chunks have the same sizes in both lists.
                var elements = old.elementCount(ofChunks: oldCursor.run(of: shared), &oldSizes)
                while elements > limit - matched {
                    shared -= 1
                    elements -= old.size(ofChunk: oldCursor.chunk(ahead: shared), &oldSizes)
                }
                if shared > 0 {
                    oldCursor.skipChunks(shared)
                    newCursor.skipChunks(shared)
                    matched += elements
                    continue
                }
            }
            let oldChunk = old.chunks[oldCursor.chunk]
            let newChunk = new.chunks[newCursor.chunk]
            let length = min(oldCursor.remaining, newCursor.remaining, limit - matched)
            let identical = IdenticalBytes.runLength(
                oldChunk,
                from: oldCursor.next,
                newChunk,
                from: newCursor.next,
                length: length,
                backward: fromEnd
            )
            matched += identical
            oldCursor.skipElements(identical)
            newCursor.skipElements(identical)
            guard identical < length else {
                continue
            }
            guard let areEqual, areEqual(oldChunk[oldCursor.next], newChunk[newCursor.next]) else {
                break
            }
            matched += 1
            oldCursor.skipElements(1)
            newCursor.skipElements(1)
        }
        return matched
    }

    /// The next `count` elements from a forward cursor.
    private func collect(_ count: Int, from cursor: inout ChunkCursor, _ sizes: inout [Int]) -> [Element] {
        var elements: [Element] = []
        elements.reserveCapacity(count)
        while elements.count < count, settle(&cursor, &sizes) {
            let chunk = chunks[cursor.chunk]
            let step = min(cursor.remaining, count - elements.count)
            for index in cursor.next..<(cursor.next + step) {
                elements.append(chunk[index])
            }
            cursor.skipElements(step)
        }
        return elements
    }

    /// Moves the cursor past finished and empty chunks; returns `false` when none is left.
    private func settle(_ cursor: inout ChunkCursor, _ sizes: inout [Int]) -> Bool {
        while cursor.remaining == 0 {
            guard let chunk = cursor.nextChunk() else {
                return false
            }
            cursor.enter(size: size(ofChunk: chunk, &sizes))
        }
        return true
    }

    private func size(ofChunk chunk: Int, _ sizes: inout [Int]) -> Int {
        if sizes[chunk] < 0 {
            sizes[chunk] = chunks[chunk].count
        }
        return sizes[chunk]
    }

    /// The number of elements in `run`, summed over the run or, when that is shorter, taken as
    /// `count` minus the chunks before and after it.
    private func elementCount(ofChunks run: Range<Int>, _ sizes: inout [Int]) -> Int {
        var total = 0
        if run.count * 2 <= chunks.count {
            for chunk in run {
                total += size(ofChunk: chunk, &sizes)
            }
            return total
        }
        for chunk in 0..<run.lowerBound {
            total += size(ofChunk: chunk, &sizes)
        }
        for chunk in run.upperBound..<chunks.count {
            total += size(ofChunk: chunk, &sizes)
        }
        return count - total
    }
}

/// A place in a list of chunks, walking forward from the start or backward from the end.
///
/// Not generic, so that a step runs no generic code. The next element is `chunks[chunk][next]`;
/// `remaining` is how many elements the current chunk has left in the walking direction.
private struct ChunkCursor {
    let fromEnd: Bool
    private let chunkCount: Int
    private(set) var chunk: Int
    private var size = 0
    private(set) var remaining = 0

    init(chunkCount: Int, fromEnd: Bool) {
        self.chunkCount = chunkCount
        self.fromEnd = fromEnd
        chunk = fromEnd ? chunkCount : -1
    }

    /// Whether nothing of the current chunk has been walked yet.
    var isAtChunkStart: Bool { remaining == size }

    /// The chunks not yet walked, the current one included.
    var chunksLeft: Int { fromEnd ? chunk + 1 : chunkCount - chunk }

    /// The index in the current chunk of the next element to walk.
    var next: Int { fromEnd ? remaining - 1 : size - remaining }

    /// The index of the chunk `step` chunks ahead of the current one in the walking direction.
    func chunk(ahead step: Int) -> Int {
        fromEnd ? chunk - step : chunk + step
    }

    /// The `count` chunks from the current one in the walking direction, as indices.
    func run(of count: Int) -> Range<Int> {
        fromEnd ? (chunk - count + 1)..<(chunk + 1) : chunk..<(chunk + count)
    }

    /// Steps to the next chunk; `nil` past the last one. Call ``enter(size:)`` with its size.
    mutating func nextChunk() -> Int? {
        chunk += fromEnd ? -1 : 1
        guard chunk >= 0 && chunk < chunkCount else {
            return nil
        }
        return chunk
    }

    mutating func enter(size: Int) {
        self.size = size
        remaining = size
    }

    /// Walks `count` elements of the current chunk.
    mutating func skipElements(_ count: Int) {
        remaining -= count
    }

    /// Walks `count` whole chunks, from the start of the current one.
    mutating func skipChunks(_ count: Int) {
        chunk += fromEnd ? -(count - 1) : count - 1
        remaining = 0
    }
}
