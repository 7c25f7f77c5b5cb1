#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Android)
    import Android
#endif

/// Recognizes the envelope of the lines a ``SessionRecorder`` writes, byte by byte, so replay
/// does not parse and search the envelope as a JSON object.
///
/// Only the exact layout the recorder writes is recognized; anything else (members in another
/// order, spaces, escapes in the type name) makes the scanner answer `nil`, and the reader falls
/// back to parsing the line as JSON, which accepts any valid layout and pinpoints errors.
enum ActionLineScanner {
    private static let indexPrefix: StaticString = #"{"index":"#
    private static let typePrefix: StaticString = #","type":""#
    private static let actionPrefix: StaticString = #"","action":"#
    private static let hashPrefix: StaticString = #","hash":""#

    /// Where the parts of an action line's envelope are.
    struct Prefix {
        let index: Int
        /// The bytes of the type name, without quotes.
        let name: Range<Int>
        /// Where the action payload starts.
        let payloadStart: Int
    }

    /// What follows the payload.
    struct Suffix {
        let hash: UInt64?
    }

    /// Scans `{"index":N,"type":"NAME","action":`.
    static func scanPrefix(_ line: [UInt8]) -> Prefix? {
        line.withUnsafeBufferPointer { bytes -> Prefix? in
            var position = 0
            guard match(indexPrefix, in: bytes, at: &position) else { return nil }
            var index = 0
            let digitsStart = position
            while position < bytes.count, bytes[position] >= UInt8(ascii: "0"), bytes[position] <= UInt8(ascii: "9") {
                guard position - digitsStart < 18 else { return nil }
                index = index * 10 + Int(bytes[position] - UInt8(ascii: "0"))
                position += 1
            }
            // A leading zero is not JSON: the general path refuses it with its column.
            guard position == digitsStart + 1 || (position > digitsStart && bytes[digitsStart] != UInt8(ascii: "0")),
                match(typePrefix, in: bytes, at: &position)
            else { return nil }
            let nameStart = position
            while position < bytes.count, bytes[position] != UInt8(ascii: "\""), bytes[position] != UInt8(ascii: "\\") {
                position += 1
            }
            let nameEnd = position
            guard nameEnd > nameStart, match(actionPrefix, in: bytes, at: &position) else { return nil }
            return Prefix(index: index, name: nameStart..<nameEnd, payloadStart: position)
        }
    }

    /// Scans what follows the payload, from `offset` to the end of the line: `}` or
    /// `,"hash":"0123456789abcdef"}`.
    static func scanSuffix(_ line: [UInt8], from offset: Int) -> Suffix? {
        line.withUnsafeBufferPointer { bytes -> Suffix? in
            var position = offset
            if position + 1 == bytes.count, bytes[position] == UInt8(ascii: "}") {
                return Suffix(hash: nil)
            }
            guard match(hashPrefix, in: bytes, at: &position), bytes.count - position == 18,
                bytes[position + 16] == UInt8(ascii: "\""), bytes[position + 17] == UInt8(ascii: "}")
            else { return nil }
            // `bytes.count - position == 18` above: the 16 digits are in the buffer.
            let digits = UnsafeRawPointer(bytes.baseAddress! + position)
            guard let high = hexValue(UInt64(littleEndian: digits.loadUnaligned(as: UInt64.self))),
                let low = hexValue(UInt64(littleEndian: digits.loadUnaligned(fromByteOffset: 8, as: UInt64.self)))
            else { return nil }
            let hash = high << 32 | low
            return Suffix(hash: hash)
        }
    }

    /// The value of eight lowercase hexadecimal digits, the first in the lowest byte of `word`, or
    /// `nil` when any byte is not one of `0`–`9`, `a`–`f` (what the recorder writes).
    ///
    /// All eight bytes at once: a byte loop costs about as much as the rest of the line's envelope.
    static func hexValue(_ word: UInt64) -> UInt64? {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highBits: UInt64 = 0x8080_8080_8080_8080
        guard word & highBits == 0 else { return nil }
        // For bytes below 0x80, `(byte | 0x80) - c` never borrows from the next byte, and keeps the
        // byte's high bit exactly when `byte >= c`.
        func atLeast(_ bound: UInt64) -> UInt64 { ((word | highBits) &- bound &* ones) & highBits }
        let isDigit = atLeast(0x30) & ~atLeast(0x3A)
        let isLetter = atLeast(0x61) & ~atLeast(0x67)
        guard isDigit | isLetter == highBits else { return nil }
        // '0'…'9' → 0…9 from the low nibble, 'a'…'f' → 1…6 from the low nibble, plus 9.
        var nibbles = (word & 0x0F0F_0F0F_0F0F_0F0F) &+ (isLetter >> 7) &* 9
        // The first digit is the most significant: bring it to the top byte, then pack pairs.
        nibbles = nibbles.byteSwapped
        nibbles = (nibbles | nibbles >> 4) & 0x00FF_00FF_00FF_00FF
        nibbles = (nibbles | nibbles >> 8) & 0x0000_FFFF_0000_FFFF
        return (nibbles | nibbles >> 16) & 0x0000_0000_FFFF_FFFF
    }

    /// Whether the line starts as the recorder's action lines do.
    static func startsAction(_ line: [UInt8]) -> Bool {
        line.withUnsafeBufferPointer { bytes in
            var position = 0
            return match(indexPrefix, in: bytes, at: &position)
        }
    }

    private static func match(_ expected: StaticString, in bytes: UnsafeBufferPointer<UInt8>, at position: inout Int)
        -> Bool
    {
        let count = expected.utf8CodeUnitCount
        guard bytes.count - position >= count, let base = bytes.baseAddress,
            memcmp(base + position, expected.utf8Start, count) == 0
        else { return false }
        position += count
        return true
    }
}
