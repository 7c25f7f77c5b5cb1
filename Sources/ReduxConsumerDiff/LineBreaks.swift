import ReduxConsumer

extension String {
    /// The text with every line break written as an escape, `\n` and `\r` as in Swift source and
    /// the rarer ones as `\u{2028}`, so that it stays on its one line of a diff or a log.
    ///
    /// - Complexity: O(n) in the length of the text; the text itself when it has no line break.
    func escapingLineBreaks() -> String {
        guard unicodeScalars.contains(where: Self.isLineBreak) else {
            return self
        }
        var escaped = ""
        escaped.reserveCapacity(utf8.count)
        for scalar in unicodeScalars {
            switch scalar {
            case "\n":
                escaped += "\\n"
            case "\r":
                escaped += "\\r"
            case _ where Self.isLineBreak(scalar):
                escaped += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            default:
                escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }

    /// The text with every line break and other control character written as an escape (`\n`,
    /// `\r`, `\t`, the others as `\u{1B}`), so that text read from a file stays on its one line
    /// of a message and cannot move a terminal's cursor or change its colours.
    ///
    /// - Complexity: O(n) in the length of the text; the text itself when it has none.
    func escapingControlCharacters() -> String {
        guard unicodeScalars.contains(where: Self.isControl) else {
            return self
        }
        var escaped = ""
        escaped.reserveCapacity(utf8.count)
        for scalar in unicodeScalars {
            switch scalar {
            case "\n":
                escaped += "\\n"
            case "\r":
                escaped += "\\r"
            case "\t":
                escaped += "\\t"
            case _ where Self.isControl(scalar):
                escaped += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            default:
                escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped
    }

    /// The C0 and C1 controls, DEL, and the line and paragraph separators.
    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029:
            true
        default:
            false
        }
    }

    /// The scalars that `Character.isNewline` counts as line breaks.
    private static func isLineBreak(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x0A...0x0D, 0x85, 0x2028, 0x2029:
            true
        default:
            false
        }
    }
}
