/// `text` followed by spaces up to `width` characters.
func leftAligned(_ text: String, width: Int) -> String {
    text + String(repeating: " ", count: max(0, width - text.count))
}

/// `text` preceded by spaces up to `width` characters.
func rightAligned(_ text: String, width: Int) -> String {
    String(repeating: " ", count: max(0, width - text.count)) + text
}
