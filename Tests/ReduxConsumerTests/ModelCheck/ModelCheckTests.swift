import Foundation
import ReduxConsumerTestSupport
import Testing

/// Random programs run against the library and against ``RuleModel``, an independent model of the
/// README's rules: every step must produce the same callbacks, in the same order, with the same
/// values, and the same `count`, `subscriberCount`, bag counts and state.
///
/// Environment variables:
/// - `MODEL_CHECK_SEED=0x…` replays one program (printed with its trace) instead of the batch;
/// - `MODEL_CHECK_BASE=N` and `MODEL_CHECK_PROGRAMS=N` explore other or more programs;
/// - `MODEL_CHECK_VERBOSE=1` prints each program's seed before it runs (to find the seed of a
///   program that stops the process);
/// - `MODEL_CHECK_MAX_STEPS=N` generates programs of up to N steps instead of 30.
struct ModelCheckTests {
    static let batches = 8
    static let environment = ProcessInfo.processInfo.environment

    static var programsPerBatch: Int {
        let total = environment["MODEL_CHECK_PROGRAMS"].flatMap { Int($0) } ?? 1_024
        return (total + batches - 1) / batches
    }

    static var base: UInt64 {
        environment["MODEL_CHECK_BASE"].flatMap { parse($0) } ?? 0x5EED_C0DE
    }

    @Test(arguments: 0..<batches)
    func randomProgramsFollowTheDocumentedRules(batch: Int) {
        if let seed = Self.environment["MODEL_CHECK_SEED"].flatMap(Self.parse) {
            if batch == 0 {
                replay(seed: seed)
            }
            return
        }
        var seeds = SplitMix64(seed: Self.base &+ UInt64(batch))
        for _ in 0..<Self.programsPerBatch {
            let seed = seeds.next()
            if Self.environment["MODEL_CHECK_VERBOSE"] != nil {
                print("model check: seed \(ModelCheck.hex(seed))")
            }
            if let report = ModelCheck.check(seed: seed) {
                Issue.record(Comment(rawValue: report))
                return
            }
        }
    }

    private func replay(seed: UInt64) {
        let program = ProgramGenerator.program(seed: seed)
        print("model check: replaying seed \(ModelCheck.hex(seed))\n\(program)")
        if let report = ModelCheck.check(seed: seed) {
            Issue.record(Comment(rawValue: report))
        } else {
            print("model check: seed \(ModelCheck.hex(seed)) agrees with the model")
        }
    }

    private static func parse(_ text: String) -> UInt64? {
        text.hasPrefix("0x") ? UInt64(text.dropFirst(2), radix: 16) : UInt64(text)
    }
}
