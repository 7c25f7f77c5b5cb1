/// The `Decoder` over one value of a ``JSONDocument``: how actions and states come back out of a
/// recording.
///
/// It reads what ``JSONBytes`` wrote: the value's own `Codable` representation, with no special
/// cases for `Date` or `Data` (they round-trip through their own `Codable` conformances). Integers
/// written with a fraction or an exponent decode when they are exact. Coding paths in errors are
/// counted from ``JSONDocument/pathRoot`` and rebuilt only when an error needs them.
struct DocumentDecoder: Decoder {
    let document: JSONDocument
    let node: Int

    var codingPath: [any CodingKey] { document.codingPath(to: node) }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard document.nodes[node].kind == .object else {
            throw document.typeMismatch([String: Int].self, at: node, expected: "an object")
        }
        return KeyedDecodingContainer(DocumentKeyedContainer<Key>(document: document, node: node))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard document.nodes[node].kind == .array else {
            throw document.typeMismatch([Int].self, at: node, expected: "an array")
        }
        return DocumentUnkeyedContainer(document: document, node: node)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        DocumentSingleValueContainer(document: document, node: node)
    }
}

extension JSONDocument {
    /// Decodes the value at `node` as `Value`.
    func decode<Value: Decodable>(_ type: Value.Type, at node: Int) throws -> Value {
        // The stand-ins of hand-written codecs are often a string or an integer: read those
        // directly rather than through `init(from:)` and a single-value container.
        // `Value` is the type just compared with, so the bit casts reinterpret a value as its own
        // type (an `as?` here would cost a dynamic cast, more than the decoding it saves).
        if Value.self == String.self {
            return unsafeBitCast(try decodeString(at: node), to: Value.self)
        }
        if Value.self == Int.self {
            return unsafeBitCast(try decodeInteger(Int.self, at: node), to: Value.self)
        }
        return try Value(from: DocumentDecoder(document: self, node: node))
    }

    func decodeBool(at node: Int) throws -> Bool {
        switch nodes[node].kind {
        case .true: return true
        case .false: return false
        default: throw typeMismatch(Bool.self, at: node, expected: "a boolean")
        }
    }

    func decodeString(at node: Int) throws -> String {
        guard nodes[node].kind == .string || nodes[node].kind == .escapedString else {
            throw typeMismatch(String.self, at: node, expected: "a string")
        }
        return string(at: node)
    }

    func decodeInteger<Integer: FixedWidthInteger>(_ type: Integer.Type, at node: Int) throws -> Integer {
        guard let value = integer(at: node, as: Integer.self) else {
            let kind = nodes[node].kind
            if kind == .integer || kind == .number {
                throw DecodingError.dataCorrupted(
                    DecodingError.Context(
                        codingPath: codingPath(to: node),
                        debugDescription: "the number does not fit in \(Integer.self)"
                    )
                )
            }
            throw typeMismatch(Integer.self, at: node, expected: "an integer")
        }
        return value
    }

    func decodeDouble(at node: Int) throws -> Double {
        guard let value = double(at: node) else {
            throw typeMismatch(Double.self, at: node, expected: "a number")
        }
        return value
    }

    func typeMismatch(_ type: Any.Type, at node: Int, expected: String) -> DecodingError {
        DecodingError.typeMismatch(
            type,
            DecodingError.Context(
                codingPath: codingPath(to: node),
                debugDescription: "expected \(expected), found \(kindDescription(at: node))"
            )
        )
    }
}
