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
                    for offset in 1...4 {
                        guard position + offset < input.count, hexDigit(input[position + offset]) != nil else {
                            throw JSONSyntaxError(
                                offset: position - 1, message: "invalid \\u escape; expected four hexadecimal digits")
                        }
                    }
                    position += 4
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
