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

struct RecordingTests {
    @Test func recordsAHeaderTheInitialStateAndOneLinePerActionThenTheEnd() throws {
        let text = try recordCounterSession(
            [
                CounterAction.increment, CounterAction.rename("Kim \"K\"\n"), CounterAction.addWork("doc"),
                CounterAction.set(-3),
            ],
            snapshotInterval: 2
        )
        #expect(
            text == """
                {"recording":"ReduxConsumer","format":"1.0","library":"0.1.0-dev","hash":"structural64","snapshotInterval":2}
                {"snapshot":0,"state":{"counter":0,"works":[]}}
                {"index":1,"type":"counter","action":{"increment":{}},"hash":"9d690d8b13a76f7d"}
                {"index":2,"type":"counter","action":{"rename":{"_0":"Kim \\"K\\"\\n"}},"hash":"a81a0cd12cb2f578"}
                {"snapshot":2,"state":{"counter":1,"name":"Kim \\"K\\"\\n","works":[]}}
                {"index":3,"type":"counter","action":{"addWork":{"_0":"doc"}},"hash":"056303b230f0720b"}
                {"index":4,"type":"counter","action":{"set":{"_0":-3}},"hash":"f2a8baeeeef84d03"}
                {"snapshot":4,"state":{"counter":-3,"name":"Kim \\"K\\"\\n","works":["doc"]}}
                {"end":4}

                """
        )
    }

    /// A session closed before its first action still records the state it started from: the
    /// recording opens, and replays no action to that state.
    @Test func aRecordingClosedBeforeItsFirstActionRecordsTheInitialState() throws {
        let text = try recordCounterSession([], from: AppState(counter: 7))
        #expect(
            text == """
                {"recording":"ReduxConsumer","format":"1.0","library":"0.1.0-dev","hash":"structural64"}
                {"snapshot":0,"state":{"counter":7,"works":[]}}
                {"end":0}

                """
        )
        let reader = try counterReader(text)
        #expect(reader.initialState == AppState(counter: 7))
        #expect(try reader.next() == nil)
    }

    @Test func withoutHashOrSnapshotsRecordsOnlyTheActions() throws {
        let text = try recordCounterSession([CounterAction.increment], hash: nil)
        #expect(
            text == """
                {"recording":"ReduxConsumer","format":"1.0","library":"0.1.0-dev"}
                {"snapshot":0,"state":{"counter":0,"works":[]}}
                {"index":1,"type":"counter","action":{"increment":{}}}
                {"end":1}

                """
        )
    }

    @Test func recordsTheActionsMiddlewareDispatchesInTheOrderTheyAreReduced() throws {
        let followUp: Middleware<AppState> = { dispatch, _ in
            { next in
                { action in
                    next(action)
                    if case .increment = action as? CounterAction { dispatch(CounterAction.addWork("after increment")) }
                }
            }
        }
        let buffer = RecordingBuffer()
        let recorder = try SessionRecorder<AppState>(to: .memory(buffer), codecs: counterCodecs)
        let store = makeStore(middleware: [followUp, recorder.middleware])
        store.dispatch(CounterAction.increment)
        store.dispatch(CounterAction.set(5))
        try recorder.close()
        let reader = try counterReader(buffer.text)
        var actions: [CounterAction] = []
        while let step = try reader.next() {
            actions.append(try #require(step.action as? CounterAction))
        }
        #expect(actions == [.increment, .addWork("after increment"), .set(5)])
    }

    @Test func anActionWithNoCodecStopsTheRecordingWithAnErrorNamingItsType() throws {
        let buffer = RecordingBuffer()
        let recorder = try SessionRecorder<AppState>(to: .memory(buffer), codecs: counterCodecs, hash: .structural)
        let store = makeStore(middleware: [recorder.middleware])
        store.dispatch(CounterAction.increment)
        store.dispatch(UnregisteredAction())
        store.dispatch(CounterAction.increment)
        #expect(store.state.counter == 2, "recording never fails a dispatch")
        let expected = RecordingError(.noCodec(actionType: "ReduxConsumerDiffTests.UnregisteredAction"), actionIndex: 2)
        #expect(recorder.failure == expected)
        #expect(recorder.recordedActionCount == 1)
        #expect(throws: expected) { try recorder.close() }
        #expect(
            expected.description
                == "no codec is registered for action type ReduxConsumerDiffTests.UnregisteredAction (action 2); "
                + "register it in ActionCodecs, or record with unregisteredActions: .skip"
        )
        #expect(
            buffer.text.split(separator: "\n").last
                == #"{"end":1,"error":"no codec is registered for action type ReduxConsumerDiffTests.UnregisteredAction (action 2); register it in ActionCodecs, or record with unregisteredActions: .skip"}"#
        )
    }

    @Test func skippedActionsKeepTheirPlaceTypeNameAndHash() throws {
        let text = try recordCounterSession(
            [CounterAction.increment, UnregisteredAction(), CounterAction.increment],
            unregisteredActions: .skip
        )
        let lines = text.split(separator: "\n")
        #expect(
            lines[3] == #"{"index":2,"skipped":"ReduxConsumerDiffTests.UnregisteredAction","hash":"9d690d8b13a76f7d"}"#)
        #expect(lines[2].hasSuffix(#""hash":"9d690d8b13a76f7d"}"#), "the skipped action changed nothing: same hash")
        #expect(lines.last == #"{"end":3}"#)
    }

    @Test func writesNothingUntilTheThresholdAFlushOrClose() throws {
        let buffer = RecordingBuffer()
        let recorder = try SessionRecorder<AppState>(to: .memory(buffer), codecs: counterCodecs, flushThreshold: 1_000)
        let store = makeStore(middleware: [recorder.middleware])
        store.dispatch(CounterAction.increment)
        #expect(buffer.bytes.isEmpty)
        try recorder.flush()
        #expect(buffer.text.hasSuffix(#"{"index":1,"type":"counter","action":{"increment":{}}}"# + "\n"))
        for _ in 0..<30 {
            store.dispatch(CounterAction.increment)
        }
        #expect(
            buffer.text.split(separator: "\n").count > 2, "30 lines of about 55 bytes pass the 1,000-byte threshold")
        try recorder.close()
        #expect(buffer.text.hasSuffix(#"{"end":31}"# + "\n"))
    }

    @Test func writesTheSameLinesToAFileAndToADescriptorAsToMemory() throws {
        let actions: [any Action] = [
            CounterAction.increment, CounterAction.rename("Kim"), CounterAction.addWork("doc"),
        ]
        let inMemory = try recordCounterSession(actions, snapshotInterval: 1)
        try withTemporaryPath { path in
            let recorder = try SessionRecorder<AppState>(
                to: .file(atPath: path), codecs: counterCodecs, hash: .structural, snapshotInterval: 1,
                flushThreshold: 0
            )
            let store = makeStore(middleware: [recorder.middleware])
            actions.forEach(store.dispatch)
            try recorder.close()
            #expect(try String(contentsOfFile: path, encoding: .utf8) == inMemory)
        }
        try withTemporaryPath { path in
            #expect(FileManager.default.createFile(atPath: path, contents: nil))
            let handle = try #require(FileHandle(forWritingAtPath: path))
            let recorder = try SessionRecorder<AppState>(
                to: .fileHandle(handle), codecs: counterCodecs, hash: .structural, snapshotInterval: 1
            )
            let store = makeStore(middleware: [recorder.middleware])
            actions.forEach(store.dispatch)
            try recorder.close()
            try handle.close()
            #expect(try String(contentsOfFile: path, encoding: .utf8) == inMemory)
        }
    }

    @Test func aFailedWriteStopsTheRecordingAndCloseThrowsIt() throws {
        let readOnly = open("/dev/null", O_RDONLY)
        defer { _ = close(readOnly) }
        let recorder = try SessionRecorder<AppState>(
            to: .fileDescriptor(readOnly), codecs: counterCodecs, flushThreshold: 0)
        let store = makeStore(middleware: [recorder.middleware])
        store.dispatch(CounterAction.increment)
        store.dispatch(CounterAction.increment)
        #expect(store.state.counter == 2)
        let failure = try #require(recorder.failure)
        guard case .writeFailed(let reason) = failure.kind else {
            Issue.record("expected a write failure, got \(failure)")
            return
        }
        #expect(reason.contains("errno \(EBADF)"))
        #expect(failure.actionIndex == 1)
        #expect(recorder.recordedActionCount == 1)
        #expect(throws: failure) { try recorder.flush() }
        #expect(throws: failure) { try recorder.close() }
    }

    @Test func aFileThatCannotBeCreatedIsReportedWithItsPath() {
        let path = "/nonexistent-directory-\(UUID().uuidString)/session.jsonl"
        #expect {
            _ = try SessionRecorder<AppState>(to: .file(atPath: path), codecs: counterCodecs)
        } throws: { error in
            guard let error = error as? RecordingError, case .cannotOpen(let reportedPath, let reason) = error.kind
            else { return false }
            return reportedPath == path && reason.contains("No such file or directory")
        }
    }

    @Test func snapshotsNeedAnEncodableState() {
        struct Opaque: Sendable {}
        #expect(throws: RecordingError(.stateNotEncodable(reason: "snapshots need Opaque to be Encodable"))) {
            _ = try SessionRecorder<Opaque>(to: .memory(RecordingBuffer()), codecs: counterCodecs, snapshotInterval: 10)
        }
    }

    @Test func aStateThatCannotBeEncodedStopsTheRecording() throws {
        struct Measured: Codable, Equatable, Sendable {
            var value = 0.0
        }
        let buffer = RecordingBuffer()
        let recorder = try SessionRecorder<Measured>(to: .memory(buffer), codecs: counterCodecs, snapshotInterval: 1)
        let store = Store(
            initialState: Measured(),
            reducer: Reducer { (state: inout Measured, _: CounterAction) in state.value = .nan },
            middleware: [recorder.middleware]
        )
        store.dispatch(CounterAction.increment)
        #expect(
            recorder.failure
                == RecordingError(.stateNotEncodable(reason: "nan cannot be written in JSON"), actionIndex: 1))
    }

    @Test func closeIsIdempotentAndLaterActionsAreNotRecorded() throws {
        let buffer = RecordingBuffer()
        let recorder = try SessionRecorder<AppState>(to: .memory(buffer), codecs: counterCodecs)
        let store = makeStore(middleware: [recorder.middleware])
        store.dispatch(CounterAction.increment)
        try recorder.close()
        let closed = buffer.text
        store.dispatch(CounterAction.increment)
        try recorder.close()
        #expect(buffer.text == closed)
        #expect(store.state.counter == 2)
    }

    @Test func aRecorderReleasedUnclosedEndsItsRecording() throws {
        let buffer = RecordingBuffer()
        do {
            let recorder = try SessionRecorder<AppState>(to: .memory(buffer), codecs: counterCodecs)
            let store = makeStore(middleware: [recorder.middleware])
            store.dispatch(CounterAction.increment)
        }
        #expect(buffer.text.hasSuffix(#"{"end":1}"# + "\n"))
    }

    @Test func flushingFromAnotherThreadWhileDispatchingKeepsEveryLineWhole() async throws {
        let buffer = RecordingBuffer()
        let recorder = try SessionRecorder<AppState>(to: .memory(buffer), codecs: counterCodecs, flushThreshold: 200)
        let store = makeStore(middleware: [recorder.middleware])
        let actions = 2_000
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for _ in 0..<actions { store.dispatch(CounterAction.increment) }
            }
            group.addTask {
                for _ in 0..<200 { try? recorder.flush() }
            }
        }
        try recorder.close()
        let reader = try counterReader(buffer.text)
        let replayed = Store(initialState: reader.initialState, reducer: appReducer)
        #expect(try reader.replay(into: replayed) == actions)
        #expect(replayed.state.counter == actions)
    }
}
