import ReduxConsumer

extension String {
    /// The text with every line break written as an escape, `\n` and `\r` as in Swift source and
    /// the rarer ones as `\u{2028}`, so that it stays on its one line of a diff or a log.
    ///
    /// - Complexity: O(n) in the length of the text; the text itself when it has no line break.
    func escapingLineBreaks() -> String {
        escaping(where: Self.isLineBreak)
    }

    /// The text with every line break and other control character written as an escape (`\n`,
    /// `\r`, `\t`, the others as `\u{1B}`), so that text read from a file stays on its one line
    /// of a message and cannot move a terminal's cursor or change its colours.
    ///
    /// - Complexity: O(n) in the length of the text; the text itself when it has none.
    func escapingControlCharacters() -> String {
        escaping(where: Self.isControl)
    }

    /// The text with the scalars `isEscaped` picks written as escapes: `\n`, `\r` and `\t` as in
    /// Swift source, the others as `\u{…}` in hexadecimal.
    private func escaping(where isEscaped: (Unicode.Scalar) -> Bool) -> String {
        guard unicodeScalars.contains(where: isEscaped) else {
            return self
        }
        var escaped = ""
        escaped.reserveCapacity(utf8.count)
        for scalar in unicodeScalars {
            guard isEscaped(scalar) else {
                escaped.unicodeScalars.append(scalar)
                continue
            }
            switch scalar {
            case "\n": escaped += "\\n"
            case "\r": escaped += "\\r"
            case "\t": escaped += "\\t"
            default: escaped += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
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
