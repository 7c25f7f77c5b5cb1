import ReduxConsumer
import ReduxConsumerTesting
import XCTest

/// Under XCTest (no Swift Testing test running) a test store reports through `XCTFail`, at the
/// line of the assertion. The failures are captured here instead of failing the run.
final class XCTestReportingTests: XCTestCase {
    private var failures: [(description: String, line: Int)] = []

    override func recordFailure(
        withDescription description: String,
        inFile filePath: String,
        atLine lineNumber: Int,
        expected: Bool
    ) {
        failures.append((description, lineNumber))
    }

    func testStateMismatchIsReportedThroughXCTFailAtTheSendLine() {
        let store = TestStore(initialState: Profile(), reducer: profileReducer)
        let line = #line + 1
        store.send(ProfileAction.increment) { $0.count = 12 }
        store.finish()

        let expected = "State mismatch after send(increment):\n  ~ count: expected 12, actual 11"
        XCTAssertEqual(failures.count, 1)
        XCTAssertEqual(failures.first?.line, line)
        XCTAssertTrue(failures.first?.description.contains(expected) ?? false, failures.first?.description ?? "")
    }
}
