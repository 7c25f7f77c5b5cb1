import Foundation
import ReduxConsumer
import ReduxConsumerDiff
import ReduxConsumerTestSupport
import Testing

/// A snapshot and the hash recorded on its action line describe the same state: a recording in
/// which they disagree is damaged, and is refused at that action, which is not applied.
struct SnapshotHashAgreementTests {
    /// The recording (see ``counterSessionLines()``).
    private func sessionLines() throws -> [String] {
        try counterSessionLines()
    }

    private func text(_ lines: [String]) -> String {
        lines.joined(separator: "\n") + "\n"
    }

    /// The 16-digit hash at the end of an action line.
    private func recordedHash(_ line: String) -> String {
        String(line.suffix(18).prefix(16))
    }

    /// The recording with a snapshot 2 of another state than action 2's hash.
    private func editedSnapshotLines() throws -> [String] {
        var lines = try sessionLines()
        #expect(lines[4] == #"{"snapshot":2,"state":{"counter":1,"name":"Kim","works":[]}}"#)
        lines[4] = #"{"snapshot":2,"state":{"counter":5,"name":"Kim","works":[]}}"#
        return lines
    }

    /// What the reader says about snapshot 2 hashing to `snapshotHash` on line 5.
    private func disagreement(_ lines: [String], snapshotHash: String) -> String {
        "corrupted line: action 2 records the state hash \(recordedHash(lines[3])), but the snapshot after it "
            + "(line 5) hashes to \(snapshotHash): one of the two lines is damaged"
    }

    @Test func aReplayRefusesASnapshotThatDisagreesWithItsActionsHash() throws {
        let lines = try editedSnapshotLines()
        let reader = try counterReader(text(lines))
        let store = Store(initialState: reader.initialState, reducer: appReducer)

        let error = #expect(throws: ReplayError.self) { try reader.replay(into: store) }

        #expect(error?.code == "corrupted-line")
        #expect(error?.line == 4)
        // The hash of the edited snapshot's state, as another session records it.
        let other = try recordCounterSession([CounterAction.set(5), CounterAction.rename("Kim")])
        let snapshotHash = recordedHash(String(other.split(separator: "\n")[3]))
        #expect(error?.message == disagreement(lines, snapshotHash: snapshotHash))
        #expect(store.state == AppState(counter: 1), "action 2 is not applied")
        #expect(reader.lastIndex == 1)
        #expect(throws: ReplayError.self, "every later read throws it again") { try reader.next() }
    }

    @Test func aHashThatDisagreesWithTheSnapshotAfterItIsRefusedToo() throws {
        var lines = try sessionLines()
        let hash = recordedHash(lines[3])
        let edited = hash.first == "0" ? "1" + hash.dropFirst() : "0" + hash.dropFirst()
        lines[3] = lines[3].replacingOccurrences(of: hash, with: edited)
        let reader = try counterReader(text(lines))
        let store = Store(initialState: reader.initialState, reducer: appReducer)

        let error = #expect(throws: ReplayError.self) { try reader.replay(into: store) }

        // Not a divergence of the replay: the recording contradicts itself.
        #expect(error?.code == "corrupted-line")
        #expect(error?.line == 4)
        #expect(error?.message.contains("action 2 records the state hash \(edited), but the snapshot after it") == true)
        #expect(store.state == AppState(counter: 1))
    }

    @Test func aCursorStaysBeforeTheActionWhoseSnapshotDisagrees() throws {
        let lines = try editedSnapshotLines()
        let cursor = ReplayCursor(reader: try counterReader(text(lines)), reducer: appReducer)
        #expect(try cursor.forward()?.index == 1)

        let error = #expect(throws: ReplayError.self) { try cursor.forward() }

        #expect(error?.code == "corrupted-line")
        #expect(error?.line == 4)
        #expect(cursor.index == 1)
        #expect(cursor.state == AppState(counter: 1))
    }

    @Test func reachingTheDamagedStepByReadingAgainFromACheckpointIsRefusedAgain() throws {
        let lines = try editedSnapshotLines()
        let cursor = ReplayCursor(reader: try counterReader(text(lines)), reducer: appReducer, checkpointInterval: 1)
        #expect(try cursor.forward()?.index == 1)
        #expect(throws: ReplayError.self) { try cursor.forward() }
        #expect(try cursor.move(to: 0) == nil)

        let error = #expect(throws: ReplayError.self) { try cursor.move(to: 2) }

        #expect(error?.code == "corrupted-line")
        #expect(cursor.index == 1)
    }

    @Test func snapshotsThatAgreeWithTheirHashesReplayAsBefore() throws {
        let reader = try counterReader(text(try sessionLines()))
        let store = Store(initialState: reader.initialState, reducer: appReducer)
        #expect(try reader.replay(into: store) == 4)
        #expect(store.state == AppState(counter: -3, name: "Kim", works: ["doc"]))
    }
}
