import Testing

/// Runs `body` and expects it to record exactly the failure `message`, at `line` when given.
///
/// Any other issue fails the test, and so does `body` recording nothing.
func expectFailure(
    _ message: String,
    atLine line: Int? = nil,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () -> Void
) {
    withKnownIssue(sourceLocation: sourceLocation) {
        body()
    } matching: { issue in
        matches(issue, message, atLine: line)
    }
}

/// Awaits `body` and expects it to record exactly the failure `message`, at `line` when given: the
/// form for the test store's async steps.
func expectFailure(
    _ message: String,
    atLine line: Int? = nil,
    isolation: isolated (any Actor)? = #isolation,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () async -> Void
) async {
    await withKnownIssue(isolation: isolation, sourceLocation: sourceLocation) {
        await body()
    } matching: { issue in
        matches(issue, message, atLine: line)
    }
}

private func matches(_ issue: Issue, _ message: String, atLine line: Int?) -> Bool {
    let text = issue.comments.map(\.rawValue).joined(separator: "\n")
    return text == message && (line == nil || issue.sourceLocation?.line == line)
}
