/// The keyed container of a ``StreamEncoder``: an object in the stream's output.
struct StreamKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let stream: EncodingStream
    let depth: Int
    let id: Int

    var codingPath: [any CodingKey] { [] }

    mutating func encodeNil(forKey key: Key) throws { try write(key) { $0.null() } }
    mutating func encode(_ value: Bool, forKey key: Key) throws { try write(key) { $0.bool(value) } }
    mutating func encode(_ value: String, forKey key: Key) throws { try write(key) { $0.string(value) } }
    mutating func encode(_ value: Double, forKey key: Key) throws { try write(key) { try $0.double(value) } }
    mutating func encode(_ value: Float, forKey key: Key) throws { try write(key) { try $0.float(value) } }
    mutating func encode(_ value: Int, forKey key: Key) throws { try write(key) { $0.integer(Int64(value)) } }
    mutating func encode(_ value: Int8, forKey key: Key) throws { try write(key) { $0.integer(Int64(value)) } }
    mutating func encode(_ value: Int16, forKey key: Key) throws { try write(key) { $0.integer(Int64(value)) } }
    mutating func encode(_ value: Int32, forKey key: Key) throws { try write(key) { $0.integer(Int64(value)) } }
    mutating func encode(_ value: Int64, forKey key: Key) throws { try write(key) { $0.integer(value) } }
    mutating func encode(_ value: UInt, forKey key: Key) throws { try write(key) { $0.unsignedInteger(UInt64(value)) } }
    mutating func encode(_ value: UInt8, forKey key: Key) throws {
        try write(key) { $0.unsignedInteger(UInt64(value)) }
    }
    mutating func encode(_ value: UInt16, forKey key: Key) throws {
        try write(key) { $0.unsignedInteger(UInt64(value)) }
    }
    mutating func encode(_ value: UInt32, forKey key: Key) throws {
        try write(key) { $0.unsignedInteger(UInt64(value)) }
    }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { try write(key) { $0.unsignedInteger(value) } }

    mutating func encode<Value: Encodable>(_ value: Value, forKey key: Key) throws {
        try stream.beginMember(key.stringValue, depth: depth, id: id)
        try stream.encodeValue(value, level: depth + 1)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type,
        forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        stream.startMember(key.stringValue, depth: depth, id: id)
        let nestedID = stream.openContainer(level: depth + 1, isObject: true)
        return KeyedEncodingContainer(StreamKeyedContainer<NestedKey>(stream: stream, depth: depth + 1, id: nestedID))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        stream.startMember(key.stringValue, depth: depth, id: id)
        let nestedID = stream.openContainer(level: depth + 1, isObject: false)
        return StreamUnkeyedContainer(stream: stream, depth: depth + 1, id: nestedID)
    }

    mutating func superEncoder() -> any Encoder {
        stream.startMember("super", depth: depth, id: id)
        return StreamEncoder(stream: stream, level: depth + 1)
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        stream.startMember(key.stringValue, depth: depth, id: id)
        return StreamEncoder(stream: stream, level: depth + 1)
    }

    // Inlined, so each scalar's closure is too: a call through the closure and the stream's
    // sink cost as much as hashing the scalar.
    @inline(__always)
    private func write(_ key: Key, _ body: (any EncodingSink) throws -> Void) throws {
        try stream.beginMember(key.stringValue, depth: depth, id: id)
        try writeScalar(into: stream, body)
    }
}

/// The unkeyed container of a ``StreamEncoder``: an array in the stream's output.
struct StreamUnkeyedContainer: UnkeyedEncodingContainer {
    let stream: EncodingStream
    let depth: Int
    let id: Int

    var codingPath: [any CodingKey] { [] }
    var count: Int { stream.count(depth: depth, id: id) }

    mutating func encodeNil() throws { try write { $0.null() } }
    mutating func encode(_ value: Bool) throws { try write { $0.bool(value) } }
    mutating func encode(_ value: String) throws { try write { $0.string(value) } }
    mutating func encode(_ value: Double) throws { try write { try $0.double(value) } }
    mutating func encode(_ value: Float) throws { try write { try $0.float(value) } }
    mutating func encode(_ value: Int) throws { try write { $0.integer(Int64(value)) } }
    mutating func encode(_ value: Int8) throws { try write { $0.integer(Int64(value)) } }
    mutating func encode(_ value: Int16) throws { try write { $0.integer(Int64(value)) } }
    mutating func encode(_ value: Int32) throws { try write { $0.integer(Int64(value)) } }
    mutating func encode(_ value: Int64) throws { try write { $0.integer(value) } }
    mutating func encode(_ value: UInt) throws { try write { $0.unsignedInteger(UInt64(value)) } }
    mutating func encode(_ value: UInt8) throws { try write { $0.unsignedInteger(UInt64(value)) } }
    mutating func encode(_ value: UInt16) throws { try write { $0.unsignedInteger(UInt64(value)) } }
    mutating func encode(_ value: UInt32) throws { try write { $0.unsignedInteger(UInt64(value)) } }
    mutating func encode(_ value: UInt64) throws { try write { $0.unsignedInteger(value) } }

    mutating func encode<Value: Encodable>(_ value: Value) throws {
        try stream.beginElement(depth: depth, id: id)
        try stream.encodeValue(value, level: depth + 1)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type
    ) -> KeyedEncodingContainer<NestedKey> {
        stream.startElement(depth: depth, id: id)
        let nestedID = stream.openContainer(level: depth + 1, isObject: true)
        return KeyedEncodingContainer(StreamKeyedContainer<NestedKey>(stream: stream, depth: depth + 1, id: nestedID))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        stream.startElement(depth: depth, id: id)
        let nestedID = stream.openContainer(level: depth + 1, isObject: false)
        return StreamUnkeyedContainer(stream: stream, depth: depth + 1, id: nestedID)
    }

    mutating func superEncoder() -> any Encoder {
        stream.startElement(depth: depth, id: id)
        return StreamEncoder(stream: stream, level: depth + 1)
    }

    @inline(__always)
    private func write(_ body: (any EncodingSink) throws -> Void) throws {
        try stream.beginElement(depth: depth, id: id)
        try writeScalar(into: stream, body)
    }
}

/// The single-value container of a ``StreamEncoder``: one value in the stream's output.
struct StreamSingleValueContainer: SingleValueEncodingContainer {
    let stream: EncodingStream
    let level: Int

    var codingPath: [any CodingKey] { [] }

    mutating func encodeNil() throws { try write { $0.null() } }
    mutating func encode(_ value: Bool) throws { try write { $0.bool(value) } }
    mutating func encode(_ value: String) throws { try write { $0.string(value) } }
    mutating func encode(_ value: Double) throws { try write { try $0.double(value) } }
    mutating func encode(_ value: Float) throws { try write { try $0.float(value) } }
    mutating func encode(_ value: Int) throws { try write { $0.integer(Int64(value)) } }
    mutating func encode(_ value: Int8) throws { try write { $0.integer(Int64(value)) } }
    mutating func encode(_ value: Int16) throws { try write { $0.integer(Int64(value)) } }
    mutating func encode(_ value: Int32) throws { try write { $0.integer(Int64(value)) } }
    mutating func encode(_ value: Int64) throws { try write { $0.integer(value) } }
    mutating func encode(_ value: UInt) throws { try write { $0.unsignedInteger(UInt64(value)) } }
    mutating func encode(_ value: UInt8) throws { try write { $0.unsignedInteger(UInt64(value)) } }
    mutating func encode(_ value: UInt16) throws { try write { $0.unsignedInteger(UInt64(value)) } }
    mutating func encode(_ value: UInt32) throws { try write { $0.unsignedInteger(UInt64(value)) } }
    mutating func encode(_ value: UInt64) throws { try write { $0.unsignedInteger(value) } }

    mutating func encode<Value: Encodable>(_ value: Value) throws {
        try stream.beginScalar(level: level)
        try stream.encodeWrapped(value, level: level)
    }

    @inline(__always)
    private func write(_ body: (any EncodingSink) throws -> Void) throws {
        try stream.beginScalar(level: level)
        try writeScalar(into: stream, body)
    }
}

/// Writes one scalar into the stream's sink, turning a sink's refusal into an `EncodingError`.
@inline(__always)
private func writeScalar(
    into stream: EncodingStream,
    _ body: (any EncodingSink) throws -> Void
) throws {
    do {
        try body(stream.sink)
    } catch let error as EncodingSinkError {
        throw EncodingStream.error(error.message)
    }
    stream.didWriteScalar()
}
