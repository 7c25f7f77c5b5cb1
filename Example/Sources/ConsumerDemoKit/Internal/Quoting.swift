/// Writes `text` as a Swift string literal: in double quotes, with `"`, `\` and control characters
/// escaped, so a message or an action never prints raw terminal escapes from user input.
func quoted(_ text: some StringProtocol) -> String {
    var result = "\""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\"": result += "\\\""
        case "\\": result += "\\\\"
        case "\n": result += "\\n"
        case "\r": result += "\\r"
        case "\t": result += "\\t"
        case _ where scalar.value < 0x20 || (0x7F..<0xA0).contains(scalar.value):
            result += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
        default: result.unicodeScalars.append(scalar)
        }
    }
    return result + "\""
}

/// ``quoted(_:)``, cut to about `limit` characters with `…` so a huge token cannot flood a message.
func quoted(_ text: some StringProtocol, limit: Int) -> String {
    guard text.count > limit else {
        return quoted(text)
    }
    return quoted(text.prefix(limit)) + "…"
}
