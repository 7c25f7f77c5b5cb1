import ReduxConsumer
import ReduxConsumerDiff
import ReduxConsumerTestSupport
import Testing

/// A header that lies about the recording, or a file that begins with a byte order mark, is refused
/// with a message that says what is wrong with it. (Found by a red-team run: a negative
/// `snapshotInterval` was accepted and exposed, and a BOM gave "its first line is not JSON".)
struct HeaderValidationTests {
    private static let rest = """
        {"snapshot":0,"state":{"counter":0,"works":[]}}
        {"end":0}

        """

    @Test(arguments: ["-5", "0", "1.5", "\"10\"", "null"])
    func aSnapshotIntervalThatIsNotAPositiveWholeNumberIsRefused(interval: String) {
        let text =
            #"{"recording":"ReduxConsumer","format":"1.0","library":"0.1.0-dev","snapshotInterval":"#
            + interval + "}\n" + Self.rest
        #expect {
            _ = try counterReader(text)
        } throws: { error in
            guard let error = error as? ReplayError, case .corruptedLine(let reason) = error.kind else { return false }
            return error.line == 1 && reason.contains("snapshotInterval")
        }
    }

    @Test func aPositiveSnapshotIntervalIsRead() throws {
        let text =
            #"{"recording":"ReduxConsumer","format":"1.0","library":"0.1.0-dev","snapshotInterval":7}"# + "\n"
            + Self.rest
        #expect(try counterReader(text).header.snapshotInterval == 7)
    }

    @Test func aByteOrderMarkBeforeTheHeaderIsNamed() {
        let header = #"{"recording":"ReduxConsumer","format":"1.0","library":"0.1.0-dev"}"#
        let text = "\u{FEFF}" + header + "\n" + Self.rest
        #expect {
            _ = try counterReader(text)
        } throws: { error in
            guard let error = error as? ReplayError, case .notARecording(let reason) = error.kind else { return false }
            return reason.contains("byte order mark")
        }
    }
}
