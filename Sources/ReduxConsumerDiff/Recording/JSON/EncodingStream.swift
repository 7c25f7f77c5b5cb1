import ReduxConsumer

/// Feeds an ``EncodingSink`` from `Encodable` values as they encode themselves, without building
/// a tree of the value first.
///
/// `Encoder` has no "container finished" call, so the stream keeps a stack of open containers and
/// closes the deeper ones as soon as a shallower container writes again, or the value's
/// `encode(to:)` returns. That is exact for every encoding that writes depth first, which includes
/// all synthesized `Codable` conformances and the standard library's. A container written to after
/// a sibling has started (an out-of-order `Encodable` implementation) is reported as an
/// `EncodingError` naming the problem, never as wrong output.
///
/// One stream encodes one value at a time; reuse it for the next value to keep its buffers.
final class EncodingStream {
    let sink: any EncodingSink
    private let distinguishesUnorderedCollections: Bool
    // `@exclusivity(unchecked)` on the state below: a stream encodes one value at a time on one
    // thread (its owner's), and no method holds an access to it while calling out to an
    // `encode(to:)`; the dynamic checks cost more than the writes they guard.
    @exclusivity(unchecked) private var frames: [EncodingFrame] = []
    @exclusivity(unchecked) private var nextFrameID = 0
    /// A key or an array slot was written and its value has not started yet.
    @exclusivity(unchecked) private var isValuePending = false
    /// How many values are being encoded in single-value containers, one inside another: they
    /// add no level, so the level limit alone would not bound the recursion.
    @exclusivity(unchecked) private var wrappingDepth = 0
    /// A misuse found where no error can be thrown (creating a container); thrown at the next write.
    @exclusivity(unchecked) private var misuse: String?
    /// Which types are sets or dictionaries: the cast that tells costs far more than a lookup.
    @exclusivity(unchecked) private var unorderedTypes: [ObjectIdentifier: Bool] = [:]
    /// The last answer of `isUnordered`: a state's own type is asked about once per hash, and a
    /// comparison costs far less than hashing the key for the table.
    @exclusivity(unchecked) private var lastUnorderedCheck: (type: ObjectIdentifier, isUnordered: Bool)?
    #if DEBUG
        /// Checks the invariant behind the unchecked accesses: one value at a time.
        private let encodingCheck = Lock(false)
    #endif

    /// The deepest container level a value may open (0 is the top-level value's own container).
    private let maximumLevel: Int

    /// The deepest container level of a value a recording can hold: a line's envelope takes one of
    /// the levels a reader accepts (``JSONDocument/maximumDepth``), the value the rest.
    static let recordableLevel = JSONDocument.maximumDepth - 2

    /// The most values encoded in single-value containers one inside another (a wrapper's value,
    /// an optional's), all levels together: two for each level a recording holds.
    static let maximumWrappingDepth = 2 * JSONDocument.maximumDepth

    /// - Parameters:
    ///   - sink: Where the events go.
    ///   - maximumLevel: The deepest container level accepted; a value nested deeper is an
    ///     `EncodingError` rather than output that the reader refuses.
    init(sink: any EncodingSink, maximumLevel: Int = .max) {
        self.sink = sink
        self.maximumLevel = maximumLevel
        distinguishesUnorderedCollections = sink.distinguishesUnorderedCollections
    }

    /// Encodes `value` as one complete JSON value into the sink.
    func encode<Value: Encodable>(_ value: Value) throws {
        #if DEBUG
            let isAlreadyEncoding = encodingCheck.withLock { isEncoding in
                defer { isEncoding = true }
                return isEncoding
            }
            precondition(!isAlreadyEncoding, "an EncodingStream encodes one value at a time, on one thread")
            defer { encodingCheck.withLock { $0 = false } }
        #endif
        if !frames.isEmpty {
            // Left over by a value that threw.
            frames.removeAll(keepingCapacity: true)
        }
        misuse = nil
        wrappingDepth = 0
        isValuePending = true
        try encodeValue(value, level: 0, fillsEmptyValue: false)
        if let misuse {
            throw Self.error(misuse)
        }
        if isValuePending {
            throw Self.error("\(Value.self) did not encode any value")
        }
    }

    /// Encodes `value` in the slot announced at `level` (0 is the top-level value).
    func encodeValue<Value: Encodable>(_ value: Value, level: Int, fillsEmptyValue: Bool = true) throws {
        if distinguishesUnorderedCollections, isUnordered(Value.self), let unordered = value as? any UnorderedEncodable
        {
            try unordered.encodeUnordered(into: self, level: level)
        } else {
            try value.encode(to: StreamEncoder(stream: self, level: level))
        }
        close(downTo: level)
        if isValuePending && fillsEmptyValue {
            // An `encode(to:)` that wrote nothing: an empty object, as Foundation's encoder writes.
            writeEmptyObject()
        }
    }

    /// Encodes `value` as the value of a single-value container at `level`: in its place, and
    /// counted so that wrappers inside wrappers stop with an error instead of overflowing the stack.
    func encodeWrapped<Value: Encodable>(_ value: Value, level: Int) throws {
        guard wrappingDepth < Self.maximumWrappingDepth else {
            throw Self.error(
                "the value nests more than \(Self.maximumWrappingDepth) values in single-value containers, "
                    + "one inside another")
        }
        wrappingDepth += 1
        defer { wrappingDepth -= 1 }
        try encodeValue(value, level: level)
    }

    /// Whether values of `type` are unordered collections (``UnorderedEncodable``).
    private func isUnordered<Value>(_ type: Value.Type) -> Bool {
        let key = ObjectIdentifier(type)
        if let last = lastUnorderedCheck, last.type == key {
            return last.isUnordered
        }
        let isUnordered: Bool
        if let known = unorderedTypes[key] {
            isUnordered = known
        } else {
            isUnordered = type is any UnorderedEncodable.Type
            unorderedTypes[key] = isUnordered
        }
        lastUnorderedCheck = (key, isUnordered)
        return isUnordered
    }

    // MARK: Containers

    /// Opens a container for the value at `level`, or returns the one already open there (an
    /// encoder may ask for its container twice); returns its identifier, or -1 after a misuse.
    func openContainer(level: Int, isObject: Bool, isUnordered: Bool = false) -> Int {
        if frames.count > level, frames[level].isObject == isObject {
            return frames[level].id
        }
        // After a misuse nothing more is written, and the first one is the one reported.
        guard misuse == nil else { return -1 }
        guard frames.count == level, isValuePending else {
            misuse = "a container was requested after its value was already written (an out-of-order encode(to:))"
            return -1
        }
        guard level <= maximumLevel else {
            misuse = "the value is nested deeper than \(maximumLevel + 1) levels, more than a recording can hold"
            return -1
        }
        let id = nextFrameID
        nextFrameID += 1
        frames.append(EncodingFrame(id: id, isObject: isObject, isUnordered: isUnordered))
        if isObject {
            sink.beginObject()
        } else {
            sink.beginArray(isUnordered: isUnordered)
        }
        isValuePending = false
        return id
    }

    /// Writes `key` in the object at `depth` and leaves its value pending.
    func beginMember(_ key: String, depth: Int, id: Int) throws {
        guard startMember(key, depth: depth, id: id) else { throw Self.error(misuse ?? "") }
    }

    /// Starts the next element of the array at `depth` and leaves its value pending.
    func beginElement(depth: Int, id: Int) throws {
        guard startElement(depth: depth, id: id) else { throw Self.error(misuse ?? "") }
    }

    /// ``beginMember(_:depth:id:)`` for callers that cannot throw: returns `false` and keeps the
    /// misuse for the next write.
    @discardableResult
    func startMember(_ key: String, depth: Int, id: Int) -> Bool {
        guard prepareWrite(depth: depth, id: id) else { return false }
        sink.key(key, index: frames[depth].count)
        frames[depth].count += 1
        isValuePending = true
        return true
    }

    /// ``beginElement(depth:id:)`` for callers that cannot throw.
    @discardableResult
    func startElement(depth: Int, id: Int) -> Bool {
        guard prepareWrite(depth: depth, id: id) else { return false }
        sink.element(index: frames[depth].count)
        frames[depth].count += 1
        isValuePending = true
        return true
    }

    /// The number of elements written so far in the array at `depth`.
    func count(depth: Int, id: Int) -> Int {
        depth < frames.count && frames[depth].id == id ? frames[depth].count : 0
    }

    /// Before a single-value container at `level` writes its scalar.
    func beginScalar(level: Int) throws {
        if let misuse {
            throw Self.error(misuse)
        }
        guard frames.count == level, isValuePending else {
            throw Self.error("a single-value container wrote a second value, or wrote after its parent moved on")
        }
    }

    /// Records that the pending value was written.
    func didWriteScalar() {
        isValuePending = false
    }

    /// Encodes the elements of a set or the pairs of a dictionary as an unordered array.
    func encodeUnordered<Elements: Sequence>(
        _ elements: Elements,
        level: Int,
        _ encodeElement: (Elements.Element, EncodingStream, Int) throws -> Void
    ) throws {
        let id = openContainer(level: level, isObject: false, isUnordered: true)
        for element in elements {
            try beginElement(depth: level, id: id)
            try encodeElement(element, self, level + 1)
        }
    }

    // MARK: Private

    /// Closes what earlier values left open above the container at `depth`; `false` (with the
    /// misuse recorded) when that container is not open any more.
    private func prepareWrite(depth: Int, id: Int) -> Bool {
        guard misuse == nil else { return false }
        guard depth < frames.count, frames[depth].id == id else {
            misuse = "a container was written to after a later sibling had started (an out-of-order encode(to:))"
            return false
        }
        close(downTo: depth + 1)
        if isValuePending {
            // The previous member's value never came (an unused `superEncoder()`).
            writeEmptyObject()
        }
        return true
    }

    /// Closes the open containers deeper than `count`, filling a value left pending.
    @inline(__always)
    private func close(downTo count: Int) {
        // Before every member and after every value, and usually nothing to close: the check is
        // inlined, the closing is not.
        if frames.count > count {
            closeFrames(downTo: count)
        }
    }

    private func closeFrames(downTo count: Int) {
        while frames.count > count {
            if isValuePending {
                writeEmptyObject()
            }
            let frame = frames.removeLast()
            if frame.isObject {
                sink.endObject()
            } else {
                sink.endArray(isUnordered: frame.isUnordered)
            }
        }
    }

    private func writeEmptyObject() {
        sink.beginObject()
        sink.endObject()
        isValuePending = false
    }

    static func error(_ message: String) -> EncodingError {
        EncodingError.invalidValue(
            Optional<Int>.none as Any,
            EncodingError.Context(codingPath: [], debugDescription: message)
        )
    }
}

/// A container open in an ``EncodingStream``.
///
struct EncodingFrame {
    let id: Int
    let isObject: Bool
    let isUnordered: Bool
    var count = 0
}

/// The `Encoder` handed to each value's `encode(to:)`: a stream and the level of the value.
///
/// `codingPath` is not tracked (always empty): it would cost an array per nested value.
struct StreamEncoder: Encoder {
    let stream: EncodingStream
    let level: Int

    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let id = stream.openContainer(level: level, isObject: true)
        return KeyedEncodingContainer(StreamKeyedContainer<Key>(stream: stream, depth: level, id: id))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        let id = stream.openContainer(level: level, isObject: false)
        return StreamUnkeyedContainer(stream: stream, depth: level, id: id)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        StreamSingleValueContainer(stream: stream, level: level)
    }
}
