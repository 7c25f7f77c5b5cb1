/// Member names: an object whose members share a name is refused, and the unescaping that tells
/// two spellings of one name apart (`"a"` and `"\u0061"` are the same name).
extension JSONParser {
    /// Objects with at most this many members compare their names pair by pair; larger ones
    /// through a set, so a big object (a dictionary in a snapshot) costs linear time.
    private static let pairwiseNameLimit = 8

    /// Throws at the second of two members of the object just parsed at node `object` that have
    /// the same name: RFC 8259 leaves such an object's meaning open, and decoding it would keep one
    /// of the two values and drop the other without a word.
    ///
    /// - Complexity: O(`count`²) comparisons of usually distinct first bytes up to
    ///   `pairwiseNameLimit` members, O(`count`) hashing beyond.
    func checkDistinctNames(ofObjectAt object: Int, count: Int) throws(JSONSyntaxError) {
        guard count > 1 else { return }
        let first = object + 1
        if count <= Self.pairwiseNameLimit {
            var later = nodes[first + 1].next
            for _ in 1..<count {
                var earlier = first
                while earlier != later {
                    if sameName(earlier, later) {
                        throw duplicateName(at: later)
                    }
                    earlier = nodes[earlier + 1].next
                }
                later = nodes[later + 1].next
            }
            return
        }
        var seen = Set<[UInt8]>(minimumCapacity: count)
        var name = first
        for _ in 0..<count {
            guard seen.insert(nameBytes(name)).inserted else {
                throw duplicateName(at: name)
            }
            name = nodes[name + 1].next
        }
    }

    /// Whether the string nodes `first` and `second` spell the same name.
    private func sameName(_ first: Int, _ second: Int) -> Bool {
        let (a, b) = (nodes[first], nodes[second])
        if a.kind == .string, b.kind == .string {
            return input[(a.start + 1)..<(a.end - 1)].elementsEqual(input[(b.start + 1)..<(b.end - 1)])
        }
        return nameBytes(first) == nameBytes(second)
    }

    /// The name of string node `node`, unescaped.
    private func nameBytes(_ node: Int) -> [UInt8] {
        let range = (nodes[node].start + 1)..<(nodes[node].end - 1)
        return nodes[node].kind == .string ? Array(input[range]) : Self.unescaped(input[range])
    }

    /// The error for the repeated name at string node `node`, quoting it (its first 60 bytes).
    private func duplicateName(at node: Int) -> JSONSyntaxError {
        let name = nodes[node]
        let shown = input[name.start..<min(name.end, name.start + 60)]
        let quoted = String(decoding: shown, as: UTF8.self) + (name.end - name.start > 60 ? "…" : "")
        return JSONSyntaxError(offset: name.start, message: "the member name \(quoted) appears twice in one object")
    }

    /// The bytes of a string's contents (between its quotes) with its escapes resolved; the
    /// parser has checked every escape, so none is malformed.
    static func unescaped(_ contents: Slice<UnsafeBufferPointer<UInt8>>) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(contents.count)
        var offset = contents.startIndex
        let bytes = contents.base
        while offset < contents.endIndex {
            let byte = bytes[offset]
            offset += 1
            guard byte == UInt8(ascii: "\\") else {
                output.append(byte)
                continue
            }
            let escape = bytes[offset]
            offset += 1
            switch escape {
            case UInt8(ascii: "b"): output.append(0x08)
            case UInt8(ascii: "f"): output.append(0x0C)
            case UInt8(ascii: "n"): output.append(0x0A)
            case UInt8(ascii: "r"): output.append(0x0D)
            case UInt8(ascii: "t"): output.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = hexValue(bytes, at: offset)
                offset += 4
                // The parser lets a surrogate escape through only as a high one followed by a low one.
                if (0xD800..<0xDC00).contains(scalar) {
                    let low = hexValue(bytes, at: offset + 2)
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    offset += 6
                }
                UTF8.encode(Unicode.Scalar(scalar)!) { output.append($0) }
            default: output.append(escape)
            }
        }
        return output
    }

    /// The value of the four hexadecimal digits at `offset`.
    private static func hexValue(_ bytes: UnsafeBufferPointer<UInt8>, at offset: Int) -> UInt32 {
        var value: UInt32 = 0
        for byte in bytes[offset..<(offset + 4)] {
            value = value << 4 + UInt32(hexDigit(byte) ?? 0)
        }
        return value
    }
}
