import Foundation
import ReduxConsumer
import ReduxConsumerDiff
import ReduxConsumerTestSupport
import Testing

/// Recorded states and actions come back equal, whatever their `Codable` shape.
struct RecordingEncodingTests {
    struct Point: Codable, Hashable, Sendable {
        var x: Int
        var y: Int
    }

    enum Status: Codable, Equatable, Sendable {
        case idle
        case loading(progress: Double)
        case failed(String, code: Int)
    }

    final class Shared: Codable, Equatable, @unchecked Sendable {
        // @unchecked: immutable after init.
        let label: String
        init(label: String) { self.label = label }
        static func == (lhs: Shared, rhs: Shared) -> Bool { lhs.label == rhs.label }
    }

    struct Rich: Codable, Equatable, Sendable {
        var small: Int8 = -128
        var largest: UInt64 = .max
        var smallest: Int64 = .min
        var fraction = 0.1
        var single: Float = 1.5
        var huge = 1e300
        var tiny = -Double.leastNonzeroMagnitude
        var text = "tab\t quote\" backslash\\ slash/ newline\n nul\u{0} bell\u{7} emoji 👩‍💻 accent é"
        var missing: String?
        var present: Int? = 3
        var nested: [[Int]] = [[1, 2], [], [3]]
        var dictionary: [String: Int] = ["b": 2, "a": 1, "": 0]
        var intKeys: [Int: String] = [2: "two", 1: "one"]
        var pointKeys: [Point: String] = [Point(x: 1, y: 2): "p", Point(x: 0, y: 0): "origin"]
        var set: Set<String> = ["x", "y", "z"]
        var status = Status.failed("boom", code: 7)
        var statuses: [Status] = [.idle, .loading(progress: 0.5)]
        var date = Date(timeIntervalSinceReferenceDate: 12_345.5)
        var data = Data([0, 1, 254, 255])
        var url = URL(string: "https://example.com/a?b=c#d")
        var shared = Shared(label: "shared")
    }

    enum RichAction: Action, Codable, Equatable {
        case replace(Rich)
    }

    @Test func aStateOfEveryShapeComesBackEqual() throws {
        var codecs = ActionCodecs()
        codecs.register(RichAction.self, as: "rich")
        let buffer = RecordingBuffer()
        let recorder = try SessionRecorder<Rich>(
            to: .memory(buffer), codecs: codecs, hash: .structural, snapshotInterval: 1)
        var changed = Rich()
        changed.text = "\u{1F}\u{7F}\"\\"
        changed.missing = "now here"
        changed.status = .loading(progress: 1 / 3)
        let store = Store(
            initialState: Rich(),
            reducer: Reducer { (state: inout Rich, action: RichAction) in
                if case .replace(let rich) = action { state = rich }
            },
            middleware: [recorder.middleware]
        )
        store.dispatch(RichAction.replace(changed))
        try recorder.close()

        let reader = try RecordingReader<Rich>(bytes: buffer.bytes, codecs: codecs)
        #expect(reader.initialState == Rich())
        let step = try #require(try reader.next())
        #expect(step.action as? RichAction == .replace(changed))
        #expect(step.snapshot == changed)
        try reader.verify(changed, after: step)
        #expect(try reader.next() == nil)
    }

    @Test func aCustomCodecRecordsItsStandIn() throws {
        struct Upload: Action {
            let fileName: String
            let open: @Sendable () -> Void
        }
        var codecs = ActionCodecs()
        codecs.register(Upload.self, as: "upload", encode: { $0.fileName }, decode: { Upload(fileName: $0, open: {}) })
        let buffer = RecordingBuffer()
        let recorder = try SessionRecorder<AppState>(to: .memory(buffer), codecs: codecs)
        let store = makeStore(middleware: [recorder.middleware])
        store.dispatch(Upload(fileName: "report.pdf", open: {}))
        try recorder.close()
        #expect(buffer.text.contains(#"{"index":1,"type":"upload","action":"report.pdf"}"#))
        let reader = try RecordingReader<AppState>(bytes: buffer.bytes, codecs: codecs)
        #expect((try reader.next()?.action as? Upload)?.fileName == "report.pdf")
    }

    @Test func anIntegerStandInIsRecordedAsANumber() throws {
        struct Jump: Action, Equatable {
            let to: Int
        }
        var codecs = ActionCodecs()
        codecs.register(Jump.self, as: "jump", encode: { $0.to }, decode: { Jump(to: $0) })
        let buffer = RecordingBuffer()
        let recorder = try SessionRecorder<AppState>(to: .memory(buffer), codecs: codecs)
        makeStore(middleware: [recorder.middleware]).dispatch(Jump(to: -42))
        try recorder.close()
        #expect(buffer.text.contains(#"{"index":1,"type":"jump","action":-42}"#))
        let reader = try RecordingReader<AppState>(bytes: buffer.bytes, codecs: codecs)
        #expect(try reader.next()?.action as? Jump == Jump(to: -42))
    }

    @Test func namesAreListedAndTypesFoundByTheirExactType() {
        struct Other: Action, Codable {}
        var codecs = counterCodecs
        codecs.register(Other.self, as: "other")
        #expect(codecs.names == ["counter", "other"])
    }
}
