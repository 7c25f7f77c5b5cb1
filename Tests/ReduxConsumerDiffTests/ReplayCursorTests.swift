import Foundation
import ReduxConsumer
import ReduxConsumerDiff
import ReduxConsumerTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

struct ReplayCursorTests {
    /// Ten actions: counter 1…10, one work added every third action.
    private func tenActions() throws -> String {
        let actions: [any Action] = (1...10).flatMap { index -> [any Action] in
            index % 3 == 0 ? [CounterAction.addWork("w\(index)")] : [CounterAction.set(index)]
        }
        return try recordCounterSession(actions, snapshotInterval: 4)
    }

    @Test func stepsForwardThroughEveryActionWithItsDiff() throws {
        let cursor = ReplayCursor(reader: try counterReader(try tenActions()), reducer: appReducer)
        var lines: [String] = []
        while let step = try cursor.forward() {
            lines.append("\(step.index) \(step.action.map { "\($0)" } ?? "?"): \(step.diff)")
        }
        #expect(
            lines == [
                "1 set(1): ~ counter: 0 → 1",
                "2 set(2): ~ counter: 1 → 2",
                "3 addWork(\"w3\"): + works[0]: \"w3\"",
                "4 set(4): ~ counter: 2 → 4",
                "5 set(5): ~ counter: 4 → 5",
                "6 addWork(\"w6\"): + works[1]: \"w6\"",
                "7 set(7): ~ counter: 5 → 7",
                "8 set(8): ~ counter: 7 → 8",
                "9 addWork(\"w9\"): + works[2]: \"w9\"",
                "10 set(10): ~ counter: 8 → 10",
            ]
        )
        #expect(cursor.index == 10)
        #expect(try cursor.forward() == nil)
    }

    @Test func stepsBackOneActionAtATimeToTheInitialState() throws {
        let cursor = ReplayCursor(
            reader: try counterReader(try tenActions()), reducer: appReducer, checkpointInterval: 3)
        try cursor.move(to: 10)
        var seen: [Int] = []
        while let step = try cursor.back() {
            #expect(step.newState == cursor.state)
            seen.append(step.index)
        }
        #expect(seen == Array((1...9).reversed()))
        #expect(cursor.index == 0)
        #expect(cursor.state == AppState())
        #expect(try cursor.back() == nil)
    }

    @Test func jumpsToAnyActionForwardAndBack() throws {
        let cursor = ReplayCursor(
            reader: try counterReader(try tenActions()), reducer: appReducer, checkpointInterval: 4)
        let six = try #require(try cursor.move(to: 6))
        #expect(six.index == 6)
        #expect(cursor.state == AppState(counter: 5, works: ["w3", "w6"]))
        let two = try #require(try cursor.move(to: 2))
        #expect(two.oldState == AppState(counter: 1))
        #expect(cursor.state == AppState(counter: 2))
        #expect(try cursor.move(to: 0) == nil)
        #expect(cursor.state == AppState())
        #expect(try cursor.move(to: 99)?.index == 10, "a jump past the end stops at the last action")
        #expect(try cursor.move(to: 99)?.index == 10, "and does so again from there")
        #expect(try cursor.move(to: 9)?.index == 9)
        #expect(cursor.state == AppState(counter: 8, works: ["w3", "w6", "w9"]))
    }

    @Test func aDivergenceStopsTheCursorOnTheDivergedState() throws {
        let offByOne = Reducer<AppState> { (state, action: CounterAction) in
            if case .set(let value) = action, value == 5 {
                state.counter = 6
            } else {
                appReducer(&state, action)
            }
        }
        let cursor = ReplayCursor(reader: try counterReader(try tenActions()), reducer: offByOne)
        let error = #expect(throws: ReplayError.self) { try cursor.move(to: 10) }
        #expect(error?.code == "diverged")
        #expect(cursor.index == 5)
        #expect(cursor.state.counter == 6)
    }

    @Test func cannotStepBackInAPipe() throws {
        let text = try tenActions()
        var descriptors: [Int32] = [0, 0]
        #expect(pipe(&descriptors) == 0)
        let written = text.utf8CString.withUnsafeBufferPointer { write(descriptors[1], $0.baseAddress, $0.count - 1) }
        #expect(written == text.utf8.count)
        _ = close(descriptors[1])
        defer { _ = close(descriptors[0]) }
        let reader = try RecordingReader<AppState>(fileDescriptor: descriptors[0], codecs: counterCodecs)
        let cursor = ReplayCursor(reader: reader, reducer: appReducer)
        try cursor.move(to: 3)
        let error = #expect(throws: ReplayError.self) { try cursor.back() }
        #expect(error?.code == "cannot-rewind")
        #expect(
            error?.message
                == "cannot step back: fd \(descriptors[0]) cannot be read again (a pipe or standard input); replay a file"
        )
    }
}
