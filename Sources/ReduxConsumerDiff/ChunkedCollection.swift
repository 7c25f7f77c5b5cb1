import ReduxConsumer

/// A collection kept as a list of arrays ("chunks") that its versions share, which ``StateDiff``
/// compares chunk by chunk instead of element by element.
///
/// A store keeps the previous state alive while it reduces the next action, so appending to a
/// plain array in the state copies every element, and diffing the two versions reads every
/// element. A collection kept in chunks of a few hundred elements copies only its list of chunks
/// and the one chunk it changes. Adopting this protocol lets the diff take the same shortcut: a
/// chunk whose storage both versions share is skipped without reading its elements, so one
/// append to a 100,000-element collection costs a few hundred pointer comparisons and one chunk.
///
/// The diff treats the value as the concatenation of its chunks: changes are reported at
/// positions in that sequence (`works[12345]`), and the value renders like an array
/// (`["a", "b"]`), whatever the chunk boundaries. Chunks may have any sizes, including zero, and
/// two versions need not split their elements the same way; shared chunks are simply faster.
///
/// ```swift
/// struct Log: RandomAccessCollection, ChunkedCollection {
///     private(set) var chunks: [[String]] = []
///     private(set) var count = 0
///
///     var startIndex: Int { 0 }
///     var endIndex: Int { count }
///     subscript(position: Int) -> String { chunks[position / 256][position % 256] }
///
///     mutating func append(_ line: String) {
///         if count % 256 == 0 {
///             chunks.append([line])
///         } else {
///             chunks[chunks.count - 1].append(line)  // copies this chunk and the list, not the others
///         }
///         count += 1
///     }
/// }
/// ```
///
/// The example CLI's `ChunkedList` (in `Example/`) is a complete one.
public protocol ChunkedCollection<Element>: Collection {
    /// The elements, in order, in the arrays that store them.
    ///
    /// The collection's `count` must equal the total of the chunks' counts (debug builds check
    /// it); make `count` O(1), as the diff reads it instead of visiting every chunk.
    ///
    /// - Complexity: Expected O(1): return the stored chunks rather than building new arrays,
    ///   which would share no storage with the previous version.
    var chunks: [[Element]] { get }
}
