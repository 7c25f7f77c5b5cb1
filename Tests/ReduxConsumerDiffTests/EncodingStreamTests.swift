import Testing

@testable import ReduxConsumerDiff

/// The JSON the recorder writes for `Encodable` implementations that are not synthesized.
struct EncodingStreamTests {
    private func json(_ value: some Encodable) throws -> String {
        let bytes = JSONBytes()
        try EncodingStream(sink: bytes).encode(value)
        return String(decoding: bytes.bytes, as: UTF8.self)
    }

    private enum Key: String, CodingKey {
        case a, b, c
    }

    /// Writes with nested containers, a super encoder and a second request for its container.
    private struct HandWritten: Encodable {
        func encode(to encoder: any Encoder) throws {
            var outer = encoder.container(keyedBy: Key.self)
            try outer.encode(1, forKey: .a)
            var list = outer.nestedUnkeyedContainer(forKey: .b)
            try list.encode("x")
            var inner = list.nestedContainer(keyedBy: Key.self)
            try inner.encodeNil(forKey: .c)
            try list.encode(true)
            _ = outer.superEncoder()
            var again = encoder.container(keyedBy: Key.self)
            try again.encode([2.5], forKey: .c)
        }
    }

    private struct WritesNothing: Encodable {
        func encode(to encoder: any Encoder) throws {}
    }

    private struct Holder<Value: Encodable>: Encodable {
        let value: Value
    }

    /// Writes to a container after one of its later siblings started.
    private struct OutOfOrder: Encodable {
        func encode(to encoder: any Encoder) throws {
            var outer = encoder.container(keyedBy: Key.self)
            var first = outer.nestedContainer(keyedBy: Key.self, forKey: .a)
            try outer.encode(1, forKey: .b)
            try first.encode(2, forKey: .c)
        }
    }

    @Test func handWrittenEncodingsAreWrittenInOrderAndClosed() throws {
        #expect(try json(HandWritten()) == #"{"a":1,"b":["x",{"c":null},true],"super":{},"c":[2.5]}"#)
    }

    @Test func aValueThatWritesNothingIsAnEmptyObjectInsideAndAnErrorAtTheTop() throws {
        #expect(try json(Holder(value: WritesNothing())) == #"{"value":{}}"#)
        #expect(throws: EncodingError.self) { try json(WritesNothing()) }
    }

    @Test func writingToAContainerAfterALaterSiblingStartedIsAnError() throws {
        #expect {
            try json(OutOfOrder())
        } throws: { error in
            guard case EncodingError.invalidValue(_, let context) = error else { return false }
            return context.debugDescription.contains("out-of-order encode(to:)")
        }
    }

    @Test func stringsAreEscapedAsJSONRequires() throws {
        #expect(try json("a\"b\\c\nd\u{1}é") == #""a\"b\\c\nd\u0001é""#)
    }

    @Test func numbersOutsideJSONAreRefused() {
        #expect(throws: EncodingError.self) { try json(Double.infinity) }
        #expect(throws: EncodingError.self) { try json(Float.nan) }
    }
}
