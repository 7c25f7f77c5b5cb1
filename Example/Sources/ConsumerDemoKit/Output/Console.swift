/// Where the demo writes: standard output for results, standard error for diagnostics, with
/// ANSI styling only when colors are on.
struct Console: Sendable {
    let write: @Sendable (String) -> Void
    let writeError: @Sendable (String) -> Void
    let usesColor: Bool

    init(environment: DemoEnvironment, usesColor: Bool) {
        write = environment.write
        writeError = environment.writeError
        self.usesColor = usesColor
    }

    /// Writes one line to standard output.
    func line(_ text: String = "") {
        write(text + "\n")
    }

    /// Writes one line to standard error.
    func errorLine(_ text: String) {
        writeError(text + "\n")
    }

    /// `text` in bold when colors are on.
    func bold(_ text: String) -> String {
        usesColor ? "\u{1B}[1m\(text)\u{1B}[0m" : text
    }

    /// `text` dimmed when colors are on.
    func dim(_ text: String) -> String {
        usesColor ? "\u{1B}[2m\(text)\u{1B}[0m" : text
    }
}
