/// A word of a script line: a bare word or a quoted string, with where it starts.
struct ScriptToken: Equatable {
    /// The word; for a quoted string, its contents with escapes resolved.
    var text: String
    /// Whether it was written in double quotes (`"nil"` is a name, `nil` is no name).
    var isQuoted: Bool
    /// The 1-based column of its first character (the opening quote for a quoted string).
    var column: Int
    /// The 1-based column just past its last character.
    var endColumn: Int

    /// Splits `line` into tokens, stopping at a `#` that starts a word (a comment).
    ///
    /// Words are separated by spaces and tabs. A quoted string may contain spaces and `#`, and the
    /// escapes `\"` and `\\`.
    static func tokenize(_ line: some StringProtocol) throws(ScriptError) -> [ScriptToken] {
        var tokens: [ScriptToken] = []
        var characters = line.makeIterator()
        var column = 0
        var pending: Character? = nil
        func next() -> Character? {
            if let character = pending {
                pending = nil
                column += 1
                return character
            }
            guard let character = characters.next() else { return nil }
            column += 1
            return character
        }
        func pushBack(_ character: Character) {
            pending = character
            column -= 1
        }
        while let character = next() {
            if character == " " || character == "\t" || character == "\r" {
                continue
            }
            if character == "#" {
                break
            }
            let start = column
            if character == "\"" {
                var text = ""
                var isClosed = false
                while let inner = next() {
                    if inner == "\"" {
                        isClosed = true
                        break
                    }
                    guard inner == "\\" else {
                        text.append(inner)
                        continue
                    }
                    let escapeColumn = column
                    switch next() {
                    case "\"": text.append("\"")
                    case "\\": text.append("\\")
                    case let other?:
                        let isPrintable = other.unicodeScalars.allSatisfy { $0.value >= 0x20 && $0.value != 0x7F }
                        throw ScriptError(
                            column: escapeColumn,
                            message: "unknown escape '\\\(isPrintable ? String(other) : "?")' in a string; "
                                + #"only \" and \\ are escapes"#
                        )
                    case nil:
                        throw ScriptError(column: start, message: #"unterminated string; expected a closing '"'"#)
                    }
                }
                guard isClosed else {
                    throw ScriptError(column: start, message: #"unterminated string; expected a closing '"'"#)
                }
                if let after = next() {
                    guard after == " " || after == "\t" || after == "\r" else {
                        throw ScriptError(column: column, message: "expected a space after the closing '\"'")
                    }
                    pushBack(after)
                }
                tokens.append(ScriptToken(text: text, isQuoted: true, column: start, endColumn: column + 1))
            } else {
                var text = String(character)
                while let inner = next() {
                    if inner == " " || inner == "\t" || inner == "\r" {
                        pushBack(inner)
                        break
                    }
                    if inner == "\"" {
                        throw ScriptError(
                            column: column,
                            message: "unexpected '\"' inside a word; quote the whole word: \"like this\""
                        )
                    }
                    text.append(inner)
                }
                tokens.append(ScriptToken(text: text, isQuoted: false, column: start, endColumn: column + 1))
            }
        }
        return tokens
    }
}
