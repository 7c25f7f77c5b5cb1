/// A collection whose element order is not part of its value and changes from process to
/// process: a `Set`, or a `Dictionary`'s key-value pairs.
///
/// ``StructuralHash`` needs to know, or the same state would hash differently in another process;
/// ``EncodingStream`` asks only sinks that say they care
/// (``EncodingSink/distinguishesUnorderedCollections``).
protocol UnorderedEncodable {
    /// Encodes the elements (for a dictionary, `[key, value]` pairs) as an unordered array.
    func encodeUnordered(into stream: EncodingStream, level: Int) throws
}

extension Set: UnorderedEncodable where Element: Encodable {
    func encodeUnordered(into stream: EncodingStream, level: Int) throws {
        try stream.encodeUnordered(self, level: level) { element, stream, level in
            try stream.encodeValue(element, level: level)
        }
    }
}

extension Dictionary: UnorderedEncodable where Key: Encodable, Value: Encodable {
    func encodeUnordered(into stream: EncodingStream, level: Int) throws {
        try stream.encodeUnordered(self, level: level) { pair, stream, level in
            let id = stream.openContainer(level: level, isObject: false)
            try stream.beginElement(depth: level, id: id)
            try stream.encodeValue(pair.key, level: level + 1)
            try stream.beginElement(depth: level, id: id)
            try stream.encodeValue(pair.value, level: level + 1)
        }
    }
}
