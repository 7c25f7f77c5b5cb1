import ReduxConsumer
import ReduxConsumerTestSupport
import Testing

@testable import ReduxConsumerDiff

/// The byte-level reading of action lines in the layout the recorder writes.
struct ActionLineScannerTests {
    private func suffix(_ text: String) -> ActionLineScanner.Suffix? {
        ActionLineScanner.scanSuffix(Array(text.utf8), from: 0)
    }

    @Test(arguments: [
        "0000000000000000", "ffffffffffffffff", "0123456789abcdef", "fedcba9876543210", "5be4c2fa0b1d93e7",
        "8000000000000001", "00000000ffffffff", "a0b0c0d0e0f09080",
    ])
    func readsTheHashAsItsHexadecimalDigitsSay(digits: String) throws {
        let read = try #require(suffix(#","hash":"\#(digits)"}"#)?.hash)
        #expect(read == UInt64(digits, radix: 16))
    }

    @Test func readsRandomHashesAsTheStandardLibraryDoes() throws {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<1_000 {
            let value = UInt64.random(in: .min ... .max, using: &generator)
            let digits = String(value, radix: 16)
            let padded = String(repeating: "0", count: 16 - digits.count) + digits
            #expect(suffix(#","hash":"\#(padded)"}"#)?.hash == value)
        }
    }

    /// Anything but lowercase digits leaves the line to the general parser (which reports errors
    /// and accepts uppercase digits): the scanner answers `nil`.
    @Test(arguments: [
        "0123456789ABCDEF", "0123456789abcdeg", "012345678/abcdef", "0123456789:bcdef", "`123456789abcdef",
        "0123456789abcde ", "0123456789abcd\u{e9}", "0123456789abcdef0", "0123456789abcde",
    ])
    func leavesAnyOtherHashToTheParser(digits: String) {
        #expect(suffix(#","hash":"\#(digits)"}"#) == nil)
    }

    @Test func aLineWithoutHashEndsWithItsBrace() {
        #expect(suffix("}").map { $0.hash == nil } == true)
    }

    @Test func aHashInUppercaseDigitsIsReadByTheParserAndVerified() throws {
        let actions: [any Action] = [CounterAction.increment, CounterAction.rename("Kim"), CounterAction.increment]
        let text = try recordCounterSession(actions)
        let edited =
            text.split(separator: "\n").map { line -> String in
                guard line.hasPrefix(#"{"index":"#) else { return String(line) }
                return String(line.dropLast(18)) + line.suffix(18).uppercased()
            }.joined(separator: "\n") + "\n"
        #expect(edited != text, "the recorded hashes hold letters")
        let reader = try counterReader(edited)
        let store = Store(initialState: reader.initialState, reducer: appReducer)
        #expect(try reader.replay(into: store) == 3)
        #expect(store.state == AppState(counter: 2, name: "Kim"))
    }
}
