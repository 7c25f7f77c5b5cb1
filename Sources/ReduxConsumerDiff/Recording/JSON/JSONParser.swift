/// A recursive-descent JSON parser (RFC 8259) that appends ``JSONDocument/Node``s.
///
/// Strict: no comments, no trailing commas, no leading zeros, no unescaped control characters in
/// strings, nesting at most ``JSONDocument/maximumDepth`` deep.
struct JSONParser {
    let input: UnsafeBufferPointer<UInt8>
    var nodes: [JSONDocument.Node]
    var position = 0

    mutating func skipWhitespace() {
        while position < input.count, Self.isWhitespace(input[position]) {
            position += 1
        }
    }

    /// Whether `byte` is JSON whitespace: space, tab, line feed or carriage return.
    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    mutating func parseValue(depth: Int) throws(JSONSyntaxError) {
        guard position < input.count else {
            throw JSONSyntaxError(offset: position, message: "unexpected end of line; expected a value")
        }
        switch input[position] {
        case UInt8(ascii: "{"): try parseContainer(isObject: true, depth: depth)
        case UInt8(ascii: "["): try parseContainer(isObject: false, depth: depth)
        case UInt8(ascii: "\""): try parseString()
        case UInt8(ascii: "t"): try parseLiteral("true", kind: .true)
        case UInt8(ascii: "f"): try parseLiteral("false", kind: .false)
        case UInt8(ascii: "n"): try parseLiteral("null", kind: .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try parseNumber()
        default: throw JSONSyntaxError(offset: position, message: "unexpected \(describeByte()); expected a value")
        }
    }

    /// The byte at the current position, described for an error message.
    func describeByte() -> String {
        position < input.count ? Self.describe(input[position]) : "end of line"
    }

    /// A byte described for an error message: `character '}'`, `space`, `byte 0x89`.
    static func describe(_ byte: UInt8) -> String {
        if byte >= 0x21 && byte < 0x7F {
            return "character '\(Character(Unicode.Scalar(byte)))'"
        }
        return byte == 0x20 ? "space" : "byte 0x\(String(byte, radix: 16))"
    }

    private mutating func parseContainer(isObject: Bool, depth: Int) throws(JSONSyntaxError) {
        guard depth < JSONDocument.maximumDepth else {
            throw JSONSyntaxError(offset: position, message: "nested deeper than \(JSONDocument.maximumDepth) levels")
        }
        let index = nodes.count
        nodes.append(.init(kind: isObject ? .object : .array, start: position, end: 0, next: 0, count: 0))
        let closing = isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")
        position += 1
        skipWhitespace()
        var count = 0
        if position < input.count, input[position] == closing {
            position += 1
        } else {
            while true {
                if isObject {
                    guard position < input.count, input[position] == UInt8(ascii: "\"") else {
                        throw JSONSyntaxError(
                            offset: position, message: "unexpected \(describeByte()); expected a member name in quotes")
                    }
                    try parseString()
                    skipWhitespace()
                    guard position < input.count, input[position] == UInt8(ascii: ":") else {
                        throw JSONSyntaxError(offset: position, message: "unexpected \(describeByte()); expected ':'")
                    }
                    position += 1
                    skipWhitespace()
                }
                try parseValue(depth: depth + 1)
                count += 1
                skipWhitespace()
                guard position < input.count else {
                    throw JSONSyntaxError(
                        offset: position,
                        message: "unexpected end of line; expected ',' or '\(Character(Unicode.Scalar(closing)))'")
                }
                if input[position] == UInt8(ascii: ",") {
                    position += 1
                    skipWhitespace()
                } else if input[position] == closing {
                    position += 1
                    break
                } else {
                    throw JSONSyntaxError(
                        offset: position,
                        message: "unexpected \(describeByte()); expected ',' or '\(Character(Unicode.Scalar(closing)))'"
                    )
                }
            }
        }
        nodes[index].end = position
        nodes[index].next = nodes.count
        nodes[index].count = count
        if isObject {
            try checkDistinctNames(ofObjectAt: index, count: count)
        }
    }

    private mutating func parseString() throws(JSONSyntaxError) {
        let start = position
        position += 1
        var isEscaped = false
        while true {
            guard position < input.count else {
                throw JSONSyntaxError(offset: start, message: "unterminated string")
            }
            let byte = input[position]
            if byte == UInt8(ascii: "\"") {
                break
            }
            if byte < 0x20 {
                throw JSONSyntaxError(offset: position, message: "unescaped control character in a string")
            }
            if byte >= 0x80 {
                try skipMultibyteCharacter()
                continue
            }
            if byte == UInt8(ascii: "\\") {
                isEscaped = true
                position += 1
                guard position < input.count else {
                    throw JSONSyntaxError(offset: start, message: "unterminated string")
                }
                switch input[position] {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                    UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                    break
                case UInt8(ascii: "u"):
                    try skipUnicodeEscape()
                default:
                    throw JSONSyntaxError(offset: position - 1, message: "invalid escape sequence in a string")
                }
            }
            position += 1
        }
        position += 1
        nodes.append(
            .init(
                kind: isEscaped ? .escapedString : .string, start: start, end: position, next: nodes.count + 1, count: 0
            ))
    }

    /// Skips the four digits of the `\u` escape whose `u` is at the current position, and the
    /// low-surrogate escape that must follow a high surrogate; leaves the position on the last
    /// digit.
    private mutating func skipUnicodeEscape() throws(JSONSyntaxError) {
        let escapeStart = position - 1
        let value = try escapedCodeUnit(at: escapeStart)
        position += 4
        // A lone surrogate is no character: decoding it would have to invent one (U+FFFD).
        switch value {
        case 0xD800..<0xDC00:
            let next = position + 1
            let hasEscapeAfter =
                next + 1 < input.count && input[next] == UInt8(ascii: "\\") && input[next + 1] == UInt8(ascii: "u")
            guard hasEscapeAfter, case 0xDC00..<0xE000 = try escapedCodeUnit(at: next) else {
                throw JSONSyntaxError(
                    offset: escapeStart, message: "a \\u escape of a high surrogate without a low surrogate after it")
            }
            position += 6
        case 0xDC00..<0xE000:
            throw JSONSyntaxError(
                offset: escapeStart, message: "a \\u escape of a low surrogate without a high surrogate before it")
        default:
            break
        }
    }

    /// The code unit of the `\uXXXX` escape at `offset`, whose backslash and `u` are checked.
    private func escapedCodeUnit(at offset: Int) throws(JSONSyntaxError) -> UInt32 {
        var value: UInt32 = 0
        for digitOffset in (offset + 2)..<(offset + 6) {
            guard digitOffset < input.count, let digit = hexDigit(input[digitOffset]) else {
                throw JSONSyntaxError(offset: offset, message: "invalid \\u escape; expected four hexadecimal digits")
            }
            value = value << 4 | UInt32(digit)
        }
        return value
    }

    /// Skips the UTF-8 sequence of one character that starts at the current position with a byte
    /// of 0x80 or more; throws at that byte when the sequence is not well-formed UTF-8 (RFC 3629).
    private mutating func skipMultibyteCharacter() throws(JSONSyntaxError) {
        let length: Int
        // The second byte's range rules out overlong forms, surrogates and values above U+10FFFF.
        var secondByte: ClosedRange<UInt8> = 0x80...0xBF
        switch input[position] {
        case 0xC2...0xDF: length = 2
        case 0xE0: (length, secondByte) = (3, 0xA0...0xBF)
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: (length, secondByte) = (3, 0x80...0x9F)
        case 0xF0: (length, secondByte) = (4, 0x90...0xBF)
        case 0xF1...0xF3: length = 4
        case 0xF4: (length, secondByte) = (4, 0x80...0x8F)
        default: length = 0
        }
        var isValid = length > 0 && position + length <= input.count
        var offset = 1
        while isValid, offset < length {
            isValid = (offset == 1 ? secondByte : 0x80...0xBF).contains(input[position + offset])
            offset += 1
        }
        guard isValid else {
            throw JSONSyntaxError(offset: position, message: "\(describeByte()) in a string is not valid UTF-8")
        }
        position += length
    }

    private mutating func parseLiteral(_ literal: StaticString, kind: JSONDocument.Kind) throws(JSONSyntaxError) {
        let start = position
        let length = literal.utf8CodeUnitCount
        let matches =
            position + length <= input.count
            && (0..<length).allSatisfy { input[position + $0] == literal.utf8Start[$0] }
        guard matches else {
            throw JSONSyntaxError(offset: position, message: "unexpected \(describeByte()); expected a value")
        }
        position += length
        nodes.append(.init(kind: kind, start: start, end: position, next: nodes.count + 1, count: 0))
    }

    private mutating func parseNumber() throws(JSONSyntaxError) {
        let start = position
        var isInteger = true
        if input[position] == UInt8(ascii: "-") {
            position += 1
        }
        guard position < input.count, isDigit(input[position]) else {
            throw JSONSyntaxError(offset: position, message: "unexpected \(describeByte()); expected a digit")
        }
        if input[position] == UInt8(ascii: "0") {
            position += 1
            if position < input.count, isDigit(input[position]) {
                throw JSONSyntaxError(offset: start, message: "a number cannot start with 0")
            }
        } else {
            skipDigits()
        }
        if position < input.count, input[position] == UInt8(ascii: ".") {
            isInteger = false
            position += 1
            guard position < input.count, isDigit(input[position]) else {
                throw JSONSyntaxError(
                    offset: position, message: "unexpected \(describeByte()); expected a digit after '.'")
            }
            skipDigits()
        }
        if position < input.count, input[position] == UInt8(ascii: "e") || input[position] == UInt8(ascii: "E") {
            isInteger = false
            position += 1
            if position < input.count, input[position] == UInt8(ascii: "+") || input[position] == UInt8(ascii: "-") {
                position += 1
            }
            guard position < input.count, isDigit(input[position]) else {
                throw JSONSyntaxError(offset: position, message: "unexpected \(describeByte()); expected an exponent")
            }
            skipDigits()
        }
        nodes.append(
            .init(kind: isInteger ? .integer : .number, start: start, end: position, next: nodes.count + 1, count: 0))
    }

    private mutating func skipDigits() {
        while position < input.count, isDigit(input[position]) {
            position += 1
        }
    }

    private func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }
}
