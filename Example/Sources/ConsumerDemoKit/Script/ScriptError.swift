/// A script line that could not be parsed or applied: where (a 1-based column, in characters)
/// and what was expected.
struct ScriptError: Error, Equatable {
    var column: Int
    var message: String
}

/// A ``ScriptError`` placed in its file: `tour.txt:4:8: error: expected a number …`.
struct ScriptDiagnostic: Equatable, CustomStringConvertible {
    var file: String
    var line: Int
    var error: ScriptError

    var description: String {
        "\(file):\(line):\(error.column): error: \(error.message)"
    }
}
