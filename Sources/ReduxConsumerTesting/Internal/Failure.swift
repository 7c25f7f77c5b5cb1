import ReduxConsumer

#if canImport(Testing)
    import Testing
#endif
#if canImport(XCTest)
    import XCTest
#endif
/// Where an assertion was written: the call site a failure points at.
struct CallSite: Sendable {
    let fileID: StaticString
    let filePath: StaticString
    let line: UInt
    let column: UInt
}

/// Where the failures reported inside `FailureCapture.$current.withValue(_:operation:)` go
/// instead of the test framework: for the package's tests of the test store's own races, whose
/// failures (a send that met a page closing) vary from run to run and are checked one by one.
///
/// A class around the closure, not a task-local of optional function type: that one crashed
/// optimized builds (Swift 6.3, Linux) in an async `withValue`.
final class FailureCapture: Sendable {
    @TaskLocal static var current: FailureCapture?

    /// Receives each failure's message.
    let record: @Sendable (String) -> Void

    init(_ record: @escaping @Sendable (String) -> Void) {
        self.record = record
    }
}

/// Reports a test failure to whichever framework runs the current test.
///
/// Swift Testing when a Swift Testing test is running (so `withKnownIssue` sees it), XCTest
/// otherwise; outside both (no test framework linked), the message goes to standard error.
func reportFailure(_ message: String, at site: CallSite) {
    if let capture = FailureCapture.current {
        capture.record(message)
        return
    }
    #if canImport(Testing)
        if Test.current != nil {
            Issue.record(
                Comment(rawValue: message),
                sourceLocation: SourceLocation(
                    fileID: String(describing: site.fileID),
                    filePath: String(describing: site.filePath),
                    line: Int(site.line),
                    column: Int(site.column)
                )
            )
            return
        }
    #endif
    #if canImport(XCTest)
        XCTFail(message, file: site.filePath, line: site.line)
    #else
        // Not `fputs(_, stderr)`: Glibc's and Musl's `stderr` is a global variable, which Swift 6
        // refuses to read from here.
        writeLineToStandardError("\(site.fileID):\(site.line): error: \(message)")
    #endif
}
