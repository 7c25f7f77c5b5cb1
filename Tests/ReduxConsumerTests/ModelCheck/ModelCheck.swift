import Foundation

/// Runs programs against the model and the library side by side, compares what every step did,
/// and shrinks and reports a disagreement.
enum ModelCheck {
    /// The number of bags a program uses.
    static let bagCount = 2

    /// Where the model and the library first disagree on a program.
    struct Mismatch {
        /// The step (top-level operation) that disagreed; `steps.count` for the final leak check.
        var step: Int
        var expected: StepOutcome
        var actual: StepOutcome
        /// What the library did on the steps before it, for context.
        var history: [StepOutcome]
    }

    /// Runs `program` on both sides; returns the first step where they disagree.
    static func firstMismatch(in program: Program) -> Mismatch? {
        let model = RuleModel(program: program)
        let library = LibraryRun(program: program)
        var history: [StepOutcome] = []
        for (index, step) in program.steps.enumerated() {
            let expected = model.run(step)
            let actual = library.run(step)
            guard expected == actual else {
                _ = library.finish()
                return Mismatch(step: index, expected: expected, actual: actual, history: history)
            }
            history.append(actual)
        }
        let leaks = library.finish()
        guard leaks == model.finish() else {
            var expected =
                history.last
                ?? StepOutcome(
                    events: [], memberCounts: [], subscriberCount: 0, bagCounts: [], state: program.initialState)
            expected.events = []
            var actual = expected
            actual.events = leaks
            return Mismatch(step: program.steps.count, expected: expected, actual: actual, history: history)
        }
        return nil
    }

    /// Checks the program of `seed`; returns a report of the disagreement, shrunk, if any.
    static func check(seed: UInt64) -> String? {
        let program = ProgramGenerator.program(seed: seed)
        guard let mismatch = firstMismatch(in: program) else { return nil }
        let shrunk = shrink(program)
        return report(original: program, mismatch: mismatch, shrunk: shrunk)
    }

    // MARK: Shrinking

    /// A smaller program that still disagrees: steps dropped, reactions and options removed, as
    /// long as a disagreement remains (any disagreement, not necessarily the same one).
    static func shrink(_ program: Program, budget: Int = 400) -> Program {
        var best = program
        var attempts = 0
        var improved = true
        while improved, attempts < budget {
            improved = false
            for candidate in simplifications(of: best) {
                attempts += 1
                if firstMismatch(in: candidate) != nil {
                    best = candidate
                    improved = true
                    break
                }
                if attempts >= budget { break }
            }
        }
        return best
    }

    private static func simplifications(of program: Program) -> [Program] {
        var candidates: [Program] = []
        // Cut everything after the first disagreement, then drop one step at a time.
        if let mismatch = firstMismatch(in: program), mismatch.step + 1 < program.steps.count {
            var cut = program
            cut.steps.removeSubrange((mismatch.step + 1)...)
            candidates.append(cut)
        }
        for index in program.steps.indices.reversed() {
            var candidate = program
            candidate.steps.remove(at: index)
            candidates.append(candidate)
        }
        for index in program.steps.indices {
            for simpler in simplifications(of: program.steps[index]) {
                var candidate = program
                candidate.steps[index] = simpler
                candidates.append(candidate)
            }
        }
        if program.consumerCount > 1 {
            var candidate = program
            candidate.consumerCount -= 1
            candidates.append(candidate.normalized())
        }
        return candidates
    }

    private static func simplifications(of operation: Instruction) -> [Instruction] {
        switch operation {
        case .add(let consumer, let spec):
            var results: [Instruction] = simplifications(of: spec.reaction).map { reaction in
                var simpler = spec
                simpler.reaction = reaction
                return .add(consumer: consumer, simpler)
            }
            if spec.bag != nil {
                var without = spec
                without.bag = nil
                results.append(.add(consumer: consumer, without))
            }
            if !spec.options.isEmpty {
                var without = spec
                without.options = []
                results.append(.add(consumer: consumer, without))
            }
            if spec.equivalence != nil {
                var without = spec
                without.equivalence = nil
                results.append(.add(consumer: consumer, without))
            }
            return results
        case .subscribeClosure(let reaction, let bag):
            return simplifications(of: reaction).map { .subscribeClosure($0, bag: bag) }
                + (bag == nil ? [] : [.subscribeClosure(reaction, bag: nil)])
        case .observeActions(let reaction, let bag):
            return simplifications(of: reaction).map { .observeActions($0, bag: bag) }
                + (bag == nil ? [] : [.observeActions(reaction, bag: nil)])
        case .subscribe(let consumer, _?):
            return [.subscribe(consumer: consumer, bag: nil)]
        default:
            return []
        }
    }

    /// Simpler reactions: none, fewer operations, simpler operations, fewer calls.
    private static func simplifications(of reaction: Reaction?) -> [Reaction?] {
        guard let reaction else { return [] }
        var results: [Reaction?] = [nil]
        if reaction.operations.count > 1 {
            for index in reaction.operations.indices {
                var fewer = reaction
                fewer.operations.remove(at: index)
                results.append(fewer)
            }
        }
        for index in reaction.operations.indices {
            for simpler in simplifications(of: reaction.operations[index]) {
                var nested = reaction
                nested.operations[index] = simpler
                results.append(nested)
            }
        }
        if reaction.times > 1 {
            var once = reaction
            once.times = 1
            results.append(once)
        }
        return results
    }

    // MARK: Reporting

    static func replayCommand(seed: UInt64) -> String {
        "MODEL_CHECK_SEED=\(hex(seed)) swift test --filter ModelCheckTests"
    }

    static func hex(_ seed: UInt64) -> String {
        "0x" + String(seed, radix: 16)
    }

    private static func report(original: Program, mismatch: Mismatch, shrunk: Program) -> String {
        var lines = [
            "The library disagrees with the model on the program of seed \(hex(original.seed)).",
            "Replay: \(replayCommand(seed: original.seed))",
            "",
        ]
        if let shrunkMismatch = firstMismatch(in: shrunk) {
            lines.append("Shrunk to \(shrunk.steps.count) of \(original.steps.count) steps:")
            lines.append(trace(of: shrunk, mismatch: shrunkMismatch))
            lines.append("")
            lines.append("Original program:")
        }
        lines.append(trace(of: original, mismatch: mismatch))
        return lines.joined(separator: "\n")
    }

    /// The program step by step with what the library did, up to the disagreement.
    static func trace(of program: Program, mismatch: Mismatch) -> String {
        var lines = ["consumers: \(program.consumerCount), initial state: \(program.initialState)"]
        for (index, outcome) in mismatch.history.enumerated() {
            lines.append("step \(index): \(program.steps[index])")
            lines.append(outcome.description)
        }
        let step =
            mismatch.step < program.steps.count ? "step \(mismatch.step): \(program.steps[mismatch.step])" : "end"
        lines.append("\(step)   <- disagreement")
        lines.append("  model (expected):")
        lines.append(mismatch.expected.description)
        lines.append("  library (actual):")
        lines.append(mismatch.actual.description)
        return lines.joined(separator: "\n")
    }
}
