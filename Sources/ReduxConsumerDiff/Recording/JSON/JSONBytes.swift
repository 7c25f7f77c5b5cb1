/// JSON text being written into a byte buffer: the sink behind a recording's lines.
///
/// Object members are written in the order the value encodes them (no sorting: a recording is read
/// back by a decoder, never compared as text), strings are escaped as RFC 8259 requires, and
/// numbers use Swift's shortest round-tripping notation.
final class JSONBytes: EncodingSink {
    var distinguishesUnorderedCollections: Bool { false }

    // `@exclusivity(unchecked)`: only this class's methods touch `bytes` while writing, on the one
    // thread that owns the sink, and none of them calls out while it holds an access.
    @exclusivity(unchecked) var bytes: [UInt8] = []

    init() {}

    func beginObject() { bytes.append(UInt8(ascii: "{")) }

    func key(_ key: String, index: Int) {
        if index > 0 { bytes.append(UInt8(ascii: ",")) }
        appendQuoted(key)
        bytes.append(UInt8(ascii: ":"))
    }

    func endObject() { bytes.append(UInt8(ascii: "}")) }

    func beginArray(isUnordered: Bool) { bytes.append(UInt8(ascii: "[")) }

    func element(index: Int) {
        if index > 0 { bytes.append(UInt8(ascii: ",")) }
    }

    func endArray(isUnordered: Bool) { bytes.append(UInt8(ascii: "]")) }

    func null() { append("null") }

    func bool(_ value: Bool) { append(value ? "true" : "false") }

    func string(_ value: String) { appendQuoted(value) }

    func integer(_ value: Int64) {
        if value < 0 {
            bytes.append(UInt8(ascii: "-"))
        }
        appendDecimal(value.magnitude)
    }

    func unsignedInteger(_ value: UInt64) { appendDecimal(value) }

    func double(_ value: Double) throws(EncodingSinkError) {
        guard value.isFinite else {
            throw EncodingSinkError(message: "\(value) cannot be written in JSON")
        }
        append(value.description)
    }

    func float(_ value: Float) throws(EncodingSinkError) {
        guard value.isFinite else {
            throw EncodingSinkError(message: "\(value) cannot be written in JSON")
        }
        append(value.description)
    }

    // MARK: Pieces of a line

    /// Appends ASCII text as it is.
    func append(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// Appends text as it is; the caller guarantees it is valid JSON in its place.
    func append(_ text: String) {
        bytes.append(contentsOf: text.utf8)
    }

    /// Appends `value` as a JSON string, quoted and escaped.
    func appendQuoted(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        var value = value
        value.withUTF8 { utf8 in
            var clean = 0
            for (offset, byte) in utf8.enumerated() where byte < 0x20 || byte == 0x22 || byte == 0x5C {
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[clean..<offset]))
                appendEscaped(byte)
                clean = offset + 1
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[clean...]))
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// Appends an unsigned integer in decimal.
    func appendDecimal(_ value: UInt64) {
        if value < 10 {
            bytes.append(UInt8(ascii: "0") + UInt8(value))
            return
        }
        var digits = 0
        var rest = value
        while rest > 0 {
            digits += 1
            rest /= 10
        }
        let start = bytes.count
        bytes.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: digits))
        rest = value
        for index in stride(from: start + digits - 1, through: start, by: -1) {
            bytes[index] = UInt8(ascii: "0") + UInt8(rest % 10)
            rest /= 10
        }
    }

    /// Appends a 64-bit hash as 16 lowercase hexadecimal digits, quoted.
    func appendQuotedHash(_ hash: UInt64) {
        bytes.append(UInt8(ascii: "\""))
        for shift in stride(from: 60, through: 0, by: -4) {
            let nibble = UInt8((hash >> UInt64(shift)) & 0xF)
            bytes.append(nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10)
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private func appendEscaped(_ byte: UInt8) {
        bytes.append(UInt8(ascii: "\\"))
        switch byte {
        case 0x22: bytes.append(UInt8(ascii: "\""))
        case 0x5C: bytes.append(UInt8(ascii: "\\"))
        case 0x0A: bytes.append(UInt8(ascii: "n"))
        case 0x0D: bytes.append(UInt8(ascii: "r"))
        case 0x09: bytes.append(UInt8(ascii: "t"))
        default:
            let hex: [UInt8] = Array("0123456789abcdef".utf8)
            bytes.append(contentsOf: [
                UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)],
            ])
        }
    }
}
