/// The keyed container of a ``DocumentDecoder``: an object's members, found by name.
struct DocumentKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let document: JSONDocument
    let node: Int

    var codingPath: [any CodingKey] { document.codingPath(to: node) }

    var allKeys: [Key] {
        let count = document.nodes[node].count
        // No `reserveCapacity`: this code runs unspecialized, where it costs more than the one
        // allocation of the first `append` (objects decoded here have a member or two).
        var keys: [Key] = []
        var child = node + 1
        for _ in 0..<count {
            if let key = Key(stringValue: document.string(at: child)) {
                keys.append(key)
            }
            child = document.nodes[child + 1].next
        }
        return keys
    }

    func contains(_ key: Key) -> Bool {
        document.member(of: node, named: key.stringValue) != nil
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        try document.nodes[value(for: key)].kind == .null
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try document.decodeBool(at: value(for: key)) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String {
        try document.decodeString(at: value(for: key))
    }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
        try document.decodeDouble(at: value(for: key))
    }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float {
        try Float(document.decodeDouble(at: value(for: key)))
    }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int {
        try document.decodeInteger(type, at: value(for: key))
    }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 {
        try document.decodeInteger(type, at: value(for: key))
    }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 {
        try document.decodeInteger(type, at: value(for: key))
    }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 {
        try document.decodeInteger(type, at: value(for: key))
    }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 {
        try document.decodeInteger(type, at: value(for: key))
    }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt {
        try document.decodeInteger(type, at: value(for: key))
    }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 {
        try document.decodeInteger(type, at: value(for: key))
    }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 {
        try document.decodeInteger(type, at: value(for: key))
    }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 {
        try document.decodeInteger(type, at: value(for: key))
    }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 {
        try document.decodeInteger(type, at: value(for: key))
    }

    func decode<Value: Decodable>(_ type: Value.Type, forKey key: Key) throws -> Value {
        try document.decode(type, at: value(for: key))
    }

    func decodeIfPresent<Value: Decodable>(_ type: Value.Type, forKey key: Key) throws -> Value? {
        guard let value = document.member(of: node, named: key.stringValue), document.nodes[value].kind != .null else {
            return nil
        }
        return try document.decode(type, at: value)
    }

    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
        guard let value = document.member(of: node, named: key.stringValue), document.nodes[value].kind != .null else {
            return nil
        }
        return try document.decodeString(at: value)
    }

    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? {
        guard let value = document.member(of: node, named: key.stringValue), document.nodes[value].kind != .null else {
            return nil
        }
        return try document.decodeInteger(type, at: value)
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type,
        forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        try DocumentDecoder(document: document, node: value(for: key)).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try DocumentDecoder(document: document, node: value(for: key)).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        guard let value = document.member(of: node, named: "super") else {
            throw DecodingError.keyNotFound(
                DocumentKey(stringValue: "super"),
                DecodingError.Context(codingPath: codingPath, debugDescription: "no member named \"super\"")
            )
        }
        return DocumentDecoder(document: document, node: value)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        try DocumentDecoder(document: document, node: value(for: key))
    }

    private func value(for key: Key) throws -> Int {
        guard let value = document.member(of: node, named: key.stringValue) else {
            throw DecodingError.keyNotFound(
                key,
                DecodingError.Context(
                    codingPath: codingPath, debugDescription: "no member named \"\(key.stringValue)\"")
            )
        }
        return value
    }
}

/// The unkeyed container of a ``DocumentDecoder``: an array's elements, in order.
struct DocumentUnkeyedContainer: UnkeyedDecodingContainer {
    let document: JSONDocument
    let node: Int
    private(set) var currentIndex = 0
    /// The node of the element at `currentIndex`.
    private var cursor: Int

    init(document: JSONDocument, node: Int) {
        self.document = document
        self.node = node
        cursor = node + 1
    }

    var codingPath: [any CodingKey] { document.codingPath(to: node) }
    var count: Int? { document.nodes[node].count }
    var isAtEnd: Bool { currentIndex >= document.nodes[node].count }

    mutating func decodeNil() throws -> Bool {
        guard try document.nodes[current(Never?.self)].kind == .null else { return false }
        advance()
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try next { try $0.decodeBool(at: $1) } }
    mutating func decode(_ type: String.Type) throws -> String { try next { try $0.decodeString(at: $1) } }
    mutating func decode(_ type: Double.Type) throws -> Double { try next { try $0.decodeDouble(at: $1) } }
    mutating func decode(_ type: Float.Type) throws -> Float { try next { try Float($0.decodeDouble(at: $1)) } }
    mutating func decode(_ type: Int.Type) throws -> Int { try next { try $0.decodeInteger(type, at: $1) } }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try next { try $0.decodeInteger(type, at: $1) } }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try next { try $0.decodeInteger(type, at: $1) } }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try next { try $0.decodeInteger(type, at: $1) } }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try next { try $0.decodeInteger(type, at: $1) } }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try next { try $0.decodeInteger(type, at: $1) } }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try next { try $0.decodeInteger(type, at: $1) } }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try next { try $0.decodeInteger(type, at: $1) } }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try next { try $0.decodeInteger(type, at: $1) } }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try next { try $0.decodeInteger(type, at: $1) } }

    mutating func decode<Value: Decodable>(_ type: Value.Type) throws -> Value {
        try next { try $0.decode(type, at: $1) }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<
        NestedKey
    > {
        try next { try DocumentDecoder(document: $0, node: $1).container(keyedBy: type) }
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try next { try DocumentDecoder(document: $0, node: $1).unkeyedContainer() }
    }

    mutating func superDecoder() throws -> any Decoder {
        try next { DocumentDecoder(document: $0, node: $1) }
    }

    /// Decodes the current element with `body`, and moves on only if that succeeded.
    private mutating func next<Value>(_ body: (JSONDocument, Int) throws -> Value) throws -> Value {
        let value = try body(document, current(Value.self))
        advance()
        return value
    }

    private func current<Value>(_ type: Value.Type) throws -> Int {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(
                type,
                DecodingError.Context(
                    codingPath: codingPath + [DocumentKey(intValue: currentIndex)],
                    debugDescription: "the array has only \(currentIndex) elements"
                )
            )
        }
        return cursor
    }

    private mutating func advance() {
        cursor = document.nodes[cursor].next
        currentIndex += 1
    }
}

/// The single-value container of a ``DocumentDecoder``.
struct DocumentSingleValueContainer: SingleValueDecodingContainer {
    let document: JSONDocument
    let node: Int

    var codingPath: [any CodingKey] { document.codingPath(to: node) }

    func decodeNil() -> Bool { document.nodes[node].kind == .null }
    func decode(_ type: Bool.Type) throws -> Bool { try document.decodeBool(at: node) }
    func decode(_ type: String.Type) throws -> String { try document.decodeString(at: node) }
    func decode(_ type: Double.Type) throws -> Double { try document.decodeDouble(at: node) }
    func decode(_ type: Float.Type) throws -> Float { try Float(document.decodeDouble(at: node)) }
    func decode(_ type: Int.Type) throws -> Int { try document.decodeInteger(type, at: node) }
    func decode(_ type: Int8.Type) throws -> Int8 { try document.decodeInteger(type, at: node) }
    func decode(_ type: Int16.Type) throws -> Int16 { try document.decodeInteger(type, at: node) }
    func decode(_ type: Int32.Type) throws -> Int32 { try document.decodeInteger(type, at: node) }
    func decode(_ type: Int64.Type) throws -> Int64 { try document.decodeInteger(type, at: node) }
    func decode(_ type: UInt.Type) throws -> UInt { try document.decodeInteger(type, at: node) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try document.decodeInteger(type, at: node) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try document.decodeInteger(type, at: node) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try document.decodeInteger(type, at: node) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try document.decodeInteger(type, at: node) }

    func decode<Value: Decodable>(_ type: Value.Type) throws -> Value {
        try document.decode(type, at: node)
    }
}
