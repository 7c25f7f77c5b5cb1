import Foundation
import ReduxConsumer
import ReduxConsumerDiff
import Testing

/// Compares `actual` with the golden file `Tests/ConsumerDemoTests/Golden/<name>`.
///
/// To accept new output, run the tests with `UPDATE_GOLDENS=1 swift test --filter ConsumerDemoTests`:
/// the goldens are rewritten from the actual output (review them with `git diff`). A mismatch is
/// reported as a line diff, rendered by the library's own `StateDiff`.
func expectGolden(_ actual: String, named name: String, sourceLocation: SourceLocation = #_sourceLocation) {
    let url = packageRoot.appendingPathComponent("Tests/ConsumerDemoTests/Golden/\(name)")
    if ProcessInfo.processInfo.environment["UPDATE_GOLDENS"] == "1" {
        do {
            try Data(actual.utf8).write(to: url)
        } catch {
            Issue.record("Could not write golden \(name): \(error)", sourceLocation: sourceLocation)
        }
        return
    }
    guard let data = FileManager.default.contents(atPath: url.path) else {
        Issue.record(
            "Missing golden \(name); create it with UPDATE_GOLDENS=1 swift test",
            sourceLocation: sourceLocation
        )
        return
    }
    let expected = String(decoding: data, as: UTF8.self)
    if expected != actual {
        let lines = { (text: String) in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) }
        let diff = StateDiff(from: lines(expected), to: lines(actual)).rendered(DiffFormat(maxValueLength: .max))
        Issue.record(
            "Output differs from golden \(name) (UPDATE_GOLDENS=1 accepts it):\n\(diff)",
            sourceLocation: sourceLocation
        )
    }
}
