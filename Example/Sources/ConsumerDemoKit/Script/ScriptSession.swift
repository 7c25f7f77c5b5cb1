import Foundation
import ReduxConsumer
import ReduxConsumerDiff

/// A global store driven by script lines: it parses a line, dispatches its action and prints the
/// diff the logging middleware saw, as text or as one JSON object.
///
/// The file runner and the prompt both drive a session; they decide what to do with errors and
/// with the prompt's own commands (`help`, `state`, `quit`), which `perform` hands back.
final class ScriptSession: Sendable {
    /// How an action's diff is laid out in text mode.
    enum Layout {
        /// `  3  increment` then the changes under the action: for files.
        case numbered
        /// Just the changes, under the line the user typed: for the prompt.
        case prompt
    }

    let store: Store<AppState>
    private let entries = Lock<[ActionLogger<AppState>.Entry]>([])
    private let console: Console
    private let layout: Layout
    private let isJSON: Bool

    /// Creates a session whose store logs every action, then passes it through `middleware`.
    init(
        console: Console,
        layout: Layout,
        isJSON: Bool,
        format: DiffFormat,
        middleware: [Middleware<AppState>] = []
    ) {
        self.console = console
        self.layout = layout
        self.isJSON = isJSON
        let entries = entries
        let logger = ActionLogger<AppState>(format: format) { entry in
            entries.withLock { $0.append(entry) }
        }
        store = Store(initialState: AppState(), reducer: appReducer, middleware: [logger.middleware] + middleware)
    }

    /// Runs one line: dispatches its action and prints the diff, or returns the prompt command it
    /// names. Returns `nil` for an action, a blank line or a comment.
    func perform(_ line: String, number: Int) throws(ScriptError) -> Statement? {
        guard let statement = try ScriptParser.parse(line) else {
            return nil
        }
        guard case .action(let action) = statement.instruction else {
            return statement
        }
        try check(action, column: statement.argumentColumn)
        store.dispatch(action)
        let logged = entries.withLock { entries in
            defer { entries.removeAll() }
            return entries
        }
        for entry in logged {
            show(entry, line: number)
        }
        return nil
    }

    /// Rejects actions the reducer would silently ignore, so the script author hears about them.
    private func check(_ action: AppAction, column: Int) throws(ScriptError) {
        guard case .removeWork(let index) = action else {
            return
        }
        let works = store.state.works
        guard !works.indices.contains(index) else {
            return
        }
        let message: String
        switch works.count {
        case 0: message = "no work at index \(index): works is empty"
        case 1: message = "no work at index \(index): works has 1 item, at index 0"
        default:
            message = "no work at index \(index): works has \(works.count) items, at indices 0...\(works.count - 1)"
        }
        throw ScriptError(column: column, message: message)
    }

    private func show(_ entry: ActionLogger<AppState>.Entry, line: Int) {
        if isJSON {
            console.line(JSONRecord(line: line, action: "\(entry.action)", changes: entry.diff.changes).encoded())
            return
        }
        switch layout {
        case .numbered:
            printNumbered(line, action: "\(entry.action)", diff: entry.diff, format: entry.format, console: console)
        case .prompt:
            for change in changeLines(entry.diff, format: entry.format, console: console) {
                console.line("  " + change)
            }
        }
    }
}

/// One action in `--json` mode: `{"action":"increment","changes":[…],"line":3}`.
struct JSONRecord: Encodable {
    var line: Int
    var action: String
    var changes: [StateDiff.Change]

    /// One line of JSON with sorted keys, so the output is the same on every run.
    func encoded() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(self) else {
            // Strings and integers always encode; keep the line count right if that ever changes.
            return #"{"error":"unencodable record"}"#
        }
        return String(decoding: data, as: UTF8.self)
    }
}
