import ReduxConsumer

#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Android)
    import Android
#endif

/// One line of JSON, parsed into a flat list of nodes that point back into its bytes.
///
/// Parsing allocates nothing per value: a node is a kind and byte offsets, containers record
/// where their subtree ends, and strings and numbers are converted only when a decoder asks for
/// them. The document is reused from line to line, keeping its storage.
final class JSONDocument {
    // `@exclusivity(unchecked)`: the arrays are written only by `parse()` and by the line reader
    // filling `bytes`, never while a decoder reads them, and a document serves one thread at a time
    // (its reader's); the dynamic checks cost more than parsing a short line.

    /// The bytes of the line being parsed, without its newline.
    @exclusivity(unchecked) var bytes: [UInt8] = []
    /// The values of the line in document order: a container is followed by its subtree (for an
    /// object, alternating key and value nodes).
    @exclusivity(unchecked) private(set) var nodes: [Node] = []
    /// The node decoders count coding paths from; set to the payload being decoded.
    var pathRoot = 0
    #if DEBUG
        /// Checks the invariant behind the unchecked accesses: one line parsed at a time.
        private let parsingCheck = Lock(false)
    #endif

    /// The deepest nesting accepted; deeper input is rejected rather than overflowing the stack.
    static let maximumDepth = 512

    /// One value of the line.
    struct Node {
        var kind: Kind
        /// Offset of the value's first byte (a string's opening quote).
        var start: Int
        /// Offset just after the value's last byte.
        var end: Int
        /// Index of the first node after this value's subtree.
        var next: Int
        /// Members of an object or elements of an array.
        var count: Int
    }

    /// The JSON kinds, with strings split by whether they need unescaping and numbers by whether
    /// they are written as integers.
    enum Kind: UInt8 {
        case null, `false`, `true`, integer, number, string, escapedString, array, object
    }

    /// Parses `bytes` as exactly one JSON value, surrounded by optional whitespace.
    ///
    /// - Throws: ``JSONSyntaxError`` with the offset of the first byte that is not valid JSON.
    func parse() throws(JSONSyntaxError) {
        let end = try parseValue(startingAt: 0)
        if let offset = bytes[end...].firstIndex(where: { !JSONParser.isWhitespace($0) }) {
            throw JSONSyntaxError(
                offset: offset, message: "unexpected \(JSONParser.describe(bytes[offset])) after the JSON value")
        }
    }

    /// Parses the one JSON value that starts at `offset` (after optional whitespace), making it
    /// node 0; returns the offset just after it. Whatever follows is left for the caller.
    ///
    /// - Throws: ``JSONSyntaxError`` with the offset of the first byte that is not valid JSON.
    func parseValue(startingAt offset: Int) throws(JSONSyntaxError) -> Int {
        #if DEBUG
            let isAlreadyParsing = parsingCheck.withLock { isParsing in
                defer { isParsing = true }
                return isParsing
            }
            precondition(!isAlreadyParsing, "a JSONDocument parses one line at a time, on one thread")
            defer { parsingCheck.withLock { $0 = false } }
        #endif
        var nodes = self.nodes
        self.nodes = []
        nodes.removeAll(keepingCapacity: true)
        pathRoot = 0
        defer { self.nodes = nodes }
        return try bytes.withUnsafeBufferPointer { (input) throws(JSONSyntaxError) -> Int in
            var parser = JSONParser(input: input, nodes: nodes, position: offset)
            nodes = []
            defer { nodes = parser.nodes }
            parser.skipWhitespace()
            try parser.parseValue(depth: 0)
            return parser.position
        }
    }

    // MARK: Reading values

    /// The value of member `name` of the object at `object`, or `nil` when it has none.
    ///
    /// - Complexity: Linear in the object's members (recorded objects have a handful).
    func member(of object: Int, named name: String) -> Int? {
        var name = name
        return name.withUTF8 { expected in
            nodes.withUnsafeBufferPointer { nodes in
                bytes.withUnsafeBufferPointer { bytes in
                    var child = object + 1
                    for _ in 0..<nodes[object].count {
                        let key = nodes[child]
                        if key.kind == .string {
                            if key.end - key.start - 2 == expected.count,
                                memcmp(
                                    bytes.baseAddress! + key.start + 1,
                                    expected.baseAddress ?? UnsafePointer(bytes.baseAddress!), expected.count) == 0
                            {
                                return child + 1
                            }
                        } else if string(at: child) == String(decoding: expected, as: UTF8.self) {
                            return child + 1
                        }
                        child = nodes[child + 1].next
                    }
                    return nil
                }
            }
        }
    }

    /// The string at `node`, unescaped; the caller checked that the node is a string.
    func string(at node: Int) -> String {
        let value = nodes[node]
        let range = (value.start + 1)..<(value.end - 1)
        if value.kind == .string {
            return bytes.withUnsafeBufferPointer {
                String(decoding: UnsafeBufferPointer(rebasing: $0[range]), as: UTF8.self)
            }
        }
        return String(decoding: unescaped(range), as: UTF8.self)
    }

    /// The integer at `node`, or `nil` when it is not a number or does not fit `Integer` exactly.
    func integer<Integer: FixedWidthInteger>(at node: Int, as type: Integer.Type = Integer.self) -> Integer? {
        let value = nodes[node]
        switch value.kind {
        case .integer:
            return bytes.withUnsafeBufferPointer { input -> Integer? in
                var offset = value.start
                let isNegative = input[offset] == UInt8(ascii: "-")
                if isNegative { offset += 1 }
                var result: Integer = 0
                while offset < value.end {
                    let digit = Integer(input[offset] &- UInt8(ascii: "0"))
                    let (shifted, overflow) = result.multipliedReportingOverflow(by: 10)
                    let (next, overflow2) =
                        isNegative
                        ? shifted.subtractingReportingOverflow(digit) : shifted.addingReportingOverflow(digit)
                    guard !overflow, !overflow2 else { return nil }
                    result = next
                    offset += 1
                }
                return result
            }
        case .number:
            return double(at: node).flatMap { Integer(exactly: $0) }
        default:
            return nil
        }
    }

    /// The number at `node` as a `Double`, or `nil` when it is not a number.
    func double(at node: Int) -> Double? {
        let value = nodes[node]
        guard value.kind == .integer || value.kind == .number else { return nil }
        let text = bytes.withUnsafeBufferPointer {
            String(decoding: UnsafeBufferPointer(rebasing: $0[value.start..<value.end]), as: UTF8.self)
        }
        return Double(text)
    }

    /// A short description of the kind at `node`, for error messages: "a string", "an object".
    func kindDescription(at node: Int) -> String {
        switch nodes[node].kind {
        case .null: "null"
        case .false, .true: "a boolean"
        case .integer, .number: "a number"
        case .string, .escapedString: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }

    /// The coding path from ``pathRoot`` to `target`, rebuilt by walking down the document: only
    /// errors ask for it, so decoding never pays for it.
    func codingPath(to target: Int) -> [any CodingKey] {
        var path: [any CodingKey] = []
        var current = pathRoot
        while current != target, current < nodes.count {
            let node = nodes[current]
            guard node.kind == .object || node.kind == .array, target > current, target < node.next else { break }
            var child = current + 1
            var found = false
            for index in 0..<node.count {
                let value = node.kind == .object ? child + 1 : child
                if target >= value, target < nodes[value].next {
                    path.append(
                        node.kind == .object
                            ? DocumentKey(stringValue: string(at: child)) : DocumentKey(intValue: index)
                    )
                    current = value
                    found = true
                    break
                }
                child = nodes[value].next
            }
            if !found { break }
        }
        return path
    }

    // MARK: Private

    private func unescaped(_ range: Range<Int>) -> [UInt8] {
        // `range` is a string node's contents, found by parsing these bytes: within them, and
        // with every escape checked (the slice is bounds-checked in debug builds).
        bytes.withUnsafeBufferPointer { JSONParser.unescaped($0[range]) }
    }
}

/// A coding key for a document's coding paths: an object's member name or an array index.
struct DocumentKey: CodingKey {
    let stringValue: String
    let intValue: Int?

    init(stringValue: String) {
        self.stringValue = stringValue
        intValue = nil
    }

    init(intValue: Int) {
        stringValue = "\(intValue)"
        self.intValue = intValue
    }
}

/// Where and why a line is not JSON.
struct JSONSyntaxError: Error {
    /// The offset of the offending byte in the line.
    let offset: Int
    let message: String
}

/// The value of a hexadecimal digit, or `nil`.
func hexDigit(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
    default: nil
    }
}
