import ReduxConsumerDiff

/// An array-like list that stores its elements in chunks of ``chunkCapacity``, so that an append
/// made while an older version is alive copies the list of chunks and the last chunk, not every
/// element.
///
/// A store keeps the previous state readable while it reduces the next action, and the demo's
/// logging middleware keeps it to diff against, so a plain array in the state is copied whole by
/// every append: a script of n `add-work` lines would cost O(n²). Here an append costs
/// O(n / ``chunkCapacity`` + ``chunkCapacity``) with or without an older version around. As a
/// ``ChunkedCollection``, the list also lets `StateDiff` skip the chunks that two versions share,
/// and it still reads like an array in diffs (`works[12345]`) and in the state (`["a", "b"]`).
///
/// Every chunk but the last holds exactly ``chunkCapacity`` elements, so a position finds its
/// chunk by division and two lists of one length are chunked alike.
///
/// The demo's `works` are one; ``ChunkedList`` is public so that `consumer-bench` can measure the
/// same type the demo runs.
public struct ChunkedList<Element>: RandomAccessCollection, MutableCollection, ChunkedCollection {
    /// How many elements each chunk holds; the last chunk may hold fewer.
    ///
    /// An append copies the list of chunks, one reference (a retain, and later a release) per
    /// chunk, and the last chunk, one element per element: 1,024 keeps both small at the sizes
    /// the demo is measured at (98 references and up to 1,024 short strings at 100,000 works), so
    /// that a script's time grows with its length, not faster.
    public static var chunkCapacity: Int { 1_024 }

    /// The elements, `chunkCapacity` to a chunk.
    public private(set) var chunks: [[Element]] = []

    /// The number of elements.
    public private(set) var count = 0

    /// Creates an empty list.
    public init() {}

    /// Creates a list of the elements of a sequence, in order.
    ///
    /// - Parameter elements: The elements.
    public init(_ elements: some Sequence<Element>) {
        append(contentsOf: elements)
    }

    /// The position of the first element: always 0.
    public var startIndex: Int { 0 }

    /// The position after the last element: ``count``.
    public var endIndex: Int { count }

    /// The element at a position in `0..<count`.
    ///
    /// - Complexity: O(1) to read. To write, O(1) when no other copy of the list is alive;
    ///   otherwise O(`count` / ``chunkCapacity`` + ``chunkCapacity``), like an append.
    public subscript(position: Int) -> Element {
        get {
            precondition(position >= 0 && position < count, "ChunkedList index out of range")
            return chunks[position / Self.chunkCapacity][position % Self.chunkCapacity]
        }
        set {
            precondition(position >= 0 && position < count, "ChunkedList index out of range")
            chunks[position / Self.chunkCapacity][position % Self.chunkCapacity] = newValue
        }
    }

    /// Adds an element at the end.
    ///
    /// - Parameter element: The element to add.
    /// - Complexity: O(1) amortized when no other copy of the list is alive; otherwise
    ///   O(`count` / ``chunkCapacity`` + ``chunkCapacity``), the list of chunks and the last chunk.
    public mutating func append(_ element: Element) {
        if count % Self.chunkCapacity == 0 {
            var chunk: [Element] = []
            chunk.reserveCapacity(Self.chunkCapacity)
            chunk.append(element)
            chunks.append(chunk)
        } else {
            chunks[chunks.count - 1].append(element)
        }
        count += 1
    }

    /// Adds the elements of a sequence at the end, in order.
    ///
    /// - Parameter elements: The elements to add.
    public mutating func append(contentsOf elements: some Sequence<Element>) {
        for element in elements {
            append(element)
        }
    }

    /// Removes and returns the element at a position, moving the later elements one place down.
    ///
    /// - Parameter position: A position in `0..<count`.
    /// - Returns: The removed element.
    /// - Complexity: O(`count` - `position`), like `Array.remove(at:)`: the chunks from the
    ///   position's on are rebuilt; the earlier chunks stay shared.
    @discardableResult
    public mutating func remove(at position: Int) -> Element {
        let removed = self[position]
        let first = position / Self.chunkCapacity
        let later = Array(self[(position + 1)...])
        let kept = chunks[first].prefix(position % Self.chunkCapacity)
        chunks.removeSubrange(first...)
        count = first * Self.chunkCapacity
        append(contentsOf: kept)
        append(contentsOf: later)
        return removed
    }
}

extension ChunkedList: ExpressibleByArrayLiteral {
    /// Creates a list of the given elements, in order.
    ///
    /// - Parameter elements: The elements.
    public init(arrayLiteral elements: Element...) {
        self.init(elements)
    }
}

extension ChunkedList: Equatable where Element: Equatable {
    /// Whether two lists hold equal elements in the same order.
    ///
    /// - Complexity: O(1) when both share their list of chunks; otherwise one comparison per
    ///   chunk that both share, plus the elements of the chunks they do not.
    public static func == (lhs: ChunkedList, rhs: ChunkedList) -> Bool {
        // Lists of one length are chunked alike, so comparing the chunk arrays compares the
        // elements; an array's `==` is O(1) for a shared buffer.
        lhs.count == rhs.count && lhs.chunks == rhs.chunks
    }
}

extension ChunkedList: Sendable where Element: Sendable {}

extension ChunkedList: Codable where Element: Codable {
    /// Decodes a list written as a plain array.
    ///
    /// - Parameter decoder: The decoder to read from.
    public init(from decoder: any Decoder) throws {
        self.init(try [Element](from: decoder))
    }

    /// Encodes the list as a plain array, so that its chunks do not show in the encoding.
    ///
    /// - Parameter encoder: The encoder to write to.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        for chunk in chunks {
            try container.encode(contentsOf: chunk)
        }
    }
}
