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
        let text = issue.comments.map(\.rawValue).joined(separator: "\n")
        return text == message && (line == nil || issue.sourceLocation?.line == line)
    }
}
