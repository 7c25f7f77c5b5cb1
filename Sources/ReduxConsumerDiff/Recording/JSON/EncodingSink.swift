/// What an ``EncodingStream`` produces from an `Encodable` value: a well-formed sequence of JSON
/// events, one value at a time.
///
/// The stream guarantees the order: every `key` or `element` is followed by exactly one value (a
/// scalar or a whole container), and containers are closed in the reverse order they were opened.
/// Two sinks read it: ``JSONBytes`` writes the JSON text of a recording's lines, and
/// ``StructuralHash`` folds it into a 64-bit hash.
///
/// Sinks are classes, and the stream holds one as an existential rather than being generic over
/// it: the stream's code is reached through `Encoder`'s witness tables, unspecialized, where a
/// generic sink costs a runtime metadata lookup for every container and value.
protocol EncodingSink: AnyObject {
    /// Whether the stream should announce sets and dictionaries as unordered collections
    /// (``EncodingSink/beginArray(isUnordered:)`` with `true`), whose element order changes from
    /// process to process. Checking for them costs a dynamic cast per encoded value, so a sink that
    /// does not care says `false`.
    var distinguishesUnorderedCollections: Bool { get }

    func beginObject()
    /// Comes before each member's value; `index` counts the members written so far.
    func key(_ key: String, index: Int)
    func endObject()

    /// Opens an array; `isUnordered` is `true` for the elements of a set or the key-value pairs of a
    /// dictionary, in an order that means nothing.
    func beginArray(isUnordered: Bool)
    /// Comes before each element's value; `index` counts the elements written so far.
    func element(index: Int)
    func endArray(isUnordered: Bool)

    func null()
    func bool(_ value: Bool)
    func string(_ value: String)
    func integer(_ value: Int64)
    func unsignedInteger(_ value: UInt64)
    /// Writes a finite number; throws for NaN and infinities, which JSON cannot hold.
    func double(_ value: Double) throws(EncodingSinkError)
    /// Writes a finite number; throws for NaN and infinities, which JSON cannot hold.
    func float(_ value: Float) throws(EncodingSinkError)
}

/// A value a sink cannot write, such as a NaN.
struct EncodingSinkError: Error {
    let message: String
}
